// Debian builds libsqlite3 with SQLITE_SECURE_DELETE, which overwrites deleted content with
// zeros. SQLite's own default, which apps on iOS get, leaves it in free pages until they are
// reused, where forensic tools recover deleted rows. Every connection opened in this process
// (sqlite3_open, _v2 or 16) starts with SQLite's default instead, so a team's DELETE leaves here
// what it leaves on a phone; a connection may still turn secure_delete on itself.

#include "CSQLiteDefaults.h"

#include <sqlite3.h>
#include <stddef.h>

static int installed;

// The entry point SQLite runs on each new connection. It never fails the open: the pragma reads
// nothing from the file, and a connection this could not change is still the team's to use.
static int use_sqlite_defaults(sqlite3 *connection, char **error, const sqlite3_api_routines *routines) {
    (void)error;
    (void)routines;
    sqlite3_exec(connection, "PRAGMA secure_delete=OFF", NULL, NULL, NULL);
    return SQLITE_OK;
}

__attribute__((constructor, used)) static void install_sqlite_defaults(void) {
    installed = sqlite3_auto_extension((void (*)(void))use_sqlite_defaults) == SQLITE_OK;
}

int sdlab_sqlite_defaults_installed(void) { return installed; }
