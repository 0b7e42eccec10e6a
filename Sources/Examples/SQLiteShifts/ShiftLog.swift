import Foundation
import SQLite3

/// The handover log: one row per entry, in a SQLite database in write-ahead-log mode.
public final class ShiftLog {
    /// A mistake the app ships with (the broken variant of this example): nil for none.
    public enum Mistake {
        /// Deletes the rows but leaves their bytes in the write-ahead log and in free pages.
        case leavesDeletedRowsOnDisk
    }

    public static var mistake: Mistake?

    private var database: OpaquePointer?

    struct SQLiteError: Error {
        let message: String
    }

    init(path: String) throws {
        guard sqlite3_open(path, &database) == SQLITE_OK else { throw SQLiteError(message: "cannot open \(path)") }
        try execute("PRAGMA journal_mode=WAL")
        if ShiftLog.mistake != .leavesDeletedRowsOnDisk {
            // Deleted content is overwritten with zeros rather than left in free space.
            try execute("PRAGMA secure_delete=ON")
        }
        try execute("CREATE TABLE IF NOT EXISTS entries (user TEXT NOT NULL, note TEXT NOT NULL)")
    }

    deinit { sqlite3_close(database) }

    func add(_ note: String, of user: String) throws {
        var statement: OpaquePointer?
        guard
            sqlite3_prepare_v2(database, "INSERT INTO entries (user, note) VALUES (?, ?)", -1, &statement, nil)
                == SQLITE_OK
        else { throw SQLiteError(message: String(cString: sqlite3_errmsg(database))) }
        defer { sqlite3_finalize(statement) }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        sqlite3_bind_text(statement, 1, user, -1, transient)
        sqlite3_bind_text(statement, 2, note, -1, transient)
        guard sqlite3_step(statement) == SQLITE_DONE else {
            throw SQLiteError(message: String(cString: sqlite3_errmsg(database)))
        }
    }

    func entries(of user: String) -> [String] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(database, "SELECT note FROM entries WHERE user = ?", -1, &statement, nil) == SQLITE_OK
        else { return [] }
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_text(statement, 1, user, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        var notes: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) {
            notes.append(String(cString: text))
        }
        return notes
    }

    func removeEntries(of user: String) {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(database, "DELETE FROM entries WHERE user = ?", -1, &statement, nil) == SQLITE_OK
        else { return }
        sqlite3_bind_text(statement, 1, user, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        sqlite3_step(statement)
        sqlite3_finalize(statement)
        if ShiftLog.mistake != .leavesDeletedRowsOnDisk {
            // The log still holds the rows' earlier versions until it is checkpointed and emptied.
            try? execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    private func execute(_ sql: String) throws {
        guard sqlite3_exec(database, sql, nil, nil, nil) == SQLITE_OK else {
            throw SQLiteError(message: String(cString: sqlite3_errmsg(database)))
        }
    }
}
