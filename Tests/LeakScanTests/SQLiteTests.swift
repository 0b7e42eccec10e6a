import Foundation
import LeakScan
import SharedDevice
import TestSupport
import Testing

/// Rows deleted from a SQLite database are not gone from its files.
@Suite(.ownThread) struct SQLiteTests {
    /// Writes rows holding canaries 1 to `rows` (each a canary column, then a text column, so
    /// that each canary is followed by a letter in its row), deletes them, then runs `ending`.
    private func deleteRows(_ rows: Int, in database: String, then ending: String) throws {
        try FileManager.default.createDirectory(
            atPath: (database as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try python(
            """
            import os, sqlite3, sys
            database = sqlite3.connect(sys.argv[1])
            database.execute("PRAGMA journal_mode=WAL")
            database.execute("PRAGMA secure_delete=OFF")
            database.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, canary TEXT, body TEXT)")
            for number in range(1, int(sys.argv[2]) + 1):
                row = ("SDLAB-CANARY/cou1/notes/plain/%d" % number, "record of cou1 " * 40)
                database.execute("INSERT INTO notes (canary, body) VALUES (?, ?)", row)
            database.commit()
            \(ending)
            database.execute("DELETE FROM notes")
            database.commit()
            assert database.execute("SELECT count(*) FROM notes").fetchone()[0] == 0
            \(ending)
            os._exit(0)
            """, [database, "\(rows)"])
    }

    /// The app still runs (or was killed): the log holds the pages as they were before the delete.
    @Test func deletedRowsAreReadInTheWriteAheadLog() throws {
        let container = try ScratchContainer()
        try deleteRows(3, in: container.path("Documents/notes.sqlite"), then: "pass")
        let found = container.scan()
        #expect(Set(found.map(\.canary)) == [canary(1), canary(2), canary(3)])
        #expect(Set(found.map(\.place)) == ["Documents/notes.sqlite-wal"], "the rows are in the log only")
    }

    /// Checkpointed and the log truncated: the rows' pages are free pages of the database.
    @Test func deletedRowsAreReadInFreePages() throws {
        let container = try ScratchContainer()
        let database = container.path("Documents/notes.sqlite")
        try deleteRows(40, in: database, then: "database.execute(\"PRAGMA wal_checkpoint(TRUNCATE)\")")
        #expect(try contents(of: database + "-wal").isEmpty)
        try python(
            """
            import sqlite3, sys
            assert sqlite3.connect(sys.argv[1]).execute("PRAGMA freelist_count").fetchone()[0] > 0
            """, [database])
        let found = container.scan()
        #expect(Set(found.map(\.canary)) == Set((1...40).map { canary($0) }))
        #expect(Set(found.map(\.place)) == ["Documents/notes.sqlite"])
    }
}
