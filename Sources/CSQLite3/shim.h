// SQLite's C API from Debian's libsqlite3-dev, as `import SQLite3` gives it on iOS.
#include <sqlite3.h>
