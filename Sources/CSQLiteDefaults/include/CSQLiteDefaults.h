// SQLite's defaults as iOS apps get them, set on every connection this process opens.
#ifndef CSQLITEDEFAULTS_H
#define CSQLITEDEFAULTS_H

// Nonzero once SQLite took the entry point that sets them (registered before main).
int sdlab_sqlite_defaults_installed(void);

#endif
