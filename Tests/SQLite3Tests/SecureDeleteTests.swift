import CSQLiteDefaults
import Foundation
import SQLite3
import Testing

/// A connection written as small public SQLite wrappers write one: open, execute, run with
/// bound text, read one number, close. Ours, to use SQLite the way a team's code does.
private final class Connection {
    enum Failure: Error {
        case sqlite(String)
    }

    private var handle: OpaquePointer?

    init(_ path: String) throws {
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK else {
            defer { sqlite3_close(handle) }
            throw Failure.sqlite(String(cString: sqlite3_errmsg(handle)))
        }
    }

    deinit { sqlite3_close(handle) }

    func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw failure }
    }

    func run(_ sql: String, _ values: String...) throws {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for (index, value) in values.enumerated() {
            sqlite3_bind_text(statement, Int32(index + 1), value, -1, transient)
        }
        guard sqlite3_step(statement) == SQLITE_DONE else { throw failure }
    }

    func scalar(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw failure }
        return sqlite3_column_int64(statement, 0)
    }

    private func prepare(_ sql: String) throws -> OpaquePointer? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else { throw failure }
        return statement
    }

    private var failure: Failure { .sqlite(String(cString: sqlite3_errmsg(handle))) }
}

/// Every connection opened through this package's SQLite3 starts with SQLite's own
/// `secure_delete` default, off, as on iOS (Debian's library is built with it on): deleted rows
/// stay in the database file's bytes, where a phone's forensics reads them.
@Suite struct SecureDeleteTests {
    /// A folder for one test's database, removed with it.
    final class Folder {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-\(UUID())").path

        init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }

        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    static let rows = 60

    static func note(_ number: Int) -> String {
        "handover note \(number) of ann: " + String(repeating: "x", count: 150)
    }

    /// Writes the rows in one connection, deletes them in another (each first runs `setup`),
    /// and returns the database file's bytes once both are closed.
    static func fileAfterDeleting(in folder: Folder, setup: String? = nil) throws -> Data {
        let path = folder.path + "/shifts.sqlite"
        do {
            let connection = try Connection(path)
            if let setup { try connection.execute(setup) }
            try connection.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, user TEXT, body TEXT)")
            for number in 1...rows {
                try connection.run("INSERT INTO notes (user, body) VALUES (?, ?)", "ann", note(number))
            }
        }
        do {
            let connection = try Connection(path)
            if let setup { try connection.execute(setup) }
            try connection.run("DELETE FROM notes WHERE user = ?", "ann")
            #expect(try connection.scalar("SELECT count(*) FROM notes") == 0)
        }
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    static func notesIn(_ file: Data) -> [Int] {
        (1...rows).filter { file.range(of: Data(note($0).utf8)) != nil }
    }

    @Test func deletedRowsStayInTheFilesBytes() throws {
        let file = try Self.fileAfterDeleting(in: Folder())
        #expect(Self.notesIn(file) == Array(1...Self.rows))
    }

    @Test func aConnectionThatTurnsSecureDeleteOnKeepsIt() throws {
        let folder = try Folder()
        let connection = try Connection(folder.path + "/on.sqlite")
        try connection.execute("PRAGMA secure_delete=ON")
        #expect(try connection.scalar("PRAGMA secure_delete") == 1)
        let file = try Self.fileAfterDeleting(in: folder, setup: "PRAGMA secure_delete=ON")
        #expect(Self.notesIn(file).isEmpty)
    }

    @Test func everyWayOfOpeningStartsWithSecureDeleteOff() throws {
        #expect(sdlab_sqlite_defaults_installed() != 0)
        let folder = try Folder()
        let path = folder.path + "/fresh.sqlite"
        var handles: [OpaquePointer?] = [nil, nil, nil]
        defer { for handle in handles { sqlite3_close(handle) } }
        #expect(sqlite3_open(path, &handles[0]) == SQLITE_OK)
        #expect(sqlite3_open_v2(path, &handles[1], SQLITE_OPEN_READONLY, nil) == SQLITE_OK)
        let utf16 = Array(path.utf16) + [0]
        #expect(utf16.withUnsafeBufferPointer { sqlite3_open16($0.baseAddress, &handles[2]) } == SQLITE_OK)
        for handle in handles {
            var statement: OpaquePointer?
            #expect(sqlite3_prepare_v2(handle, "PRAGMA secure_delete", -1, &statement, nil) == SQLITE_OK)
            #expect(sqlite3_step(statement) == SQLITE_ROW)
            #expect(sqlite3_column_int(statement, 0) == 0)
            sqlite3_finalize(statement)
        }
        #expect(try Connection(":memory:").scalar("PRAGMA secure_delete") == 0)
    }
}
