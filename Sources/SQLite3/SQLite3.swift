// `import SQLite3` as on iOS: SQLite's C API (Debian's libsqlite3), and the CoreFoundation
// names Foundation brings there. Linking it links CSQLiteDefaults, whose constructor gives every
// connection SQLite's own defaults, as iOS apps get them (secure_delete off).
@_exported import CSQLite3
@_exported import CoreFoundationDarwin
