// `import SQLite3` as on iOS: SQLite's C API (Debian's libsqlite3), and the CoreFoundation
// names Foundation brings there.
@_exported import CSQLite3
@_exported import CoreFoundationDarwin
