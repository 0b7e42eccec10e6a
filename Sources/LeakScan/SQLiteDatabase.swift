import CSQLite3

/// A SQLite database read as the app reads it back, with Debian's libsqlite3: every row of every
/// table, every column (TEXT converted from the database's encoding to UTF-8, BLOBs whole), and
/// the schema's own text. A row longer than a page is stored in pieces, each overflow page
/// starting with a pointer to the next, so its bytes never lie together in the file: only the
/// library puts them back together.
///
/// The database is read from memory (`sqlite3_deserialize`), never opened where it lies: the
/// app's files never change, and the scan writes nothing (an app scans its own container from
/// inside its fence). What the app would read is read: the committed frames of its write-ahead
/// log applied, and a hot rollback journal rolled back, as SQLite does when it opens the files
/// (both formats are SQLite's file format document's); and the file as it is, which an attacker
/// who copies only the database file reads. The raw bytes of all three (free pages, old frames)
/// are searched besides, by `CanaryReader`.
enum SQLiteDatabase {
    static let magic: [UInt8] = Array("SQLite format 3".utf8) + [0]

    static func isDatabase(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.count >= 100 && bytes.starts(with: magic)
    }

    /// The values of the database `bytes` (nil when it is none), with the write-ahead log and
    /// rollback journal that lie beside it, at most `limit` bytes of values.
    static func read(
        _ bytes: UnsafeBufferPointer<UInt8>, writeAheadLog: [UInt8]? = nil, journal: [UInt8]? = nil, limit: Int
    ) -> FormatReading? {
        guard isDatabase(bytes) else { return nil }
        var images: [(label: String, image: [UInt8])] = [("sqlite", Array(bytes))]
        if let journal, let rolledBack = RollbackJournal.rolledBack(Array(bytes), journal: journal) {
            images = [("sqlite", rolledBack), ("sqlite-before-rollback", Array(bytes))]
        }
        if let writeAheadLog, let applied = WriteAheadLog.applied(to: images[0].image, log: writeAheadLog) {
            images.insert(("sqlite", applied), at: 0)
            images[1].label = "sqlite-without-wal"
        }
        var reading = FormatReading()
        for (label, image) in images {
            guard reading.byteCount < limit else {
                reading.stopped = true
                break
            }
            read(image, label: label, limit: limit, into: &reading)
        }
        return reading
    }

    /// Reads one image of the database into `reading`.
    private static func read(_ image: [UInt8], label: String, limit: Int, into reading: inout FormatReading) {
        var image = image
        // Bytes 18 and 19 say WAL mode, which a database in memory cannot open: the log is
        // already applied.
        if image[18] == 2 { (image[18], image[19]) = (1, 1) }
        guard let database = open(image) else {
            reading.problems.append("the database (\(label)) cannot be opened in memory")
            return
        }
        defer { sqlite3_close(database) }
        var tables: [String] = []
        let schema = "SELECT type, name, sql FROM sqlite_schema"
        let schemaFailure = rows(in: database, schema, limit: limit - reading.byteCount) { _, cells in
            // The schema's text holds every name and default value.
            for case .some(let text) in cells { reading.add(label + ":sqlite_schema", text) }
            if cells[0] == Array("table".utf8), let name = cells[1] {
                tables.append(String(decoding: name, as: UTF8.self))
            }
        }
        if let schemaFailure {
            reading.problems.append("the database's schema (\(label)) cannot be read: \(schemaFailure)")
            return
        }
        for table in tables {
            let quoted = "\"" + table.replacing("\"", with: "\"\"") + "\""
            var labels: [String] = []
            let failure = rows(in: database, "SELECT * FROM \(quoted)", limit: limit - reading.byteCount) {
                columns, cells in
                if labels.isEmpty { labels = columns.map { "\(label):\(table).\($0)" } }
                for (column, cell) in cells.enumerated() {
                    if let cell { reading.add(labels[column], cell) }
                }
            }
            if failure == Self.stoppedAtLimit {
                reading.stopped = true
                return
            }
            if let failure {
                reading.problems.append("table \(table) of the database (\(label)) cannot be read: \(failure)")
            }
        }
    }

    /// The image opened read-only in memory; SQLite owns its copy and frees it with the connection.
    private static func open(_ image: [UInt8]) -> OpaquePointer? {
        var database: OpaquePointer?
        guard sqlite3_open_v2(":memory:", &database, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
            let database
        else {
            if let database { sqlite3_close(database) }
            return nil
        }
        guard let copy = sqlite3_malloc64(UInt64(image.count)) else {
            sqlite3_close(database)
            return nil
        }
        image.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        let flags = UInt32(SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY)
        let size = Int64(image.count)
        guard
            sqlite3_deserialize(database, "main", copy.assumingMemoryBound(to: UInt8.self), size, size, flags)
                == SQLITE_OK
        else {
            sqlite3_close(database)
            return nil
        }
        return database
    }

    static let stoppedAtLimit = "stopped at the limit"

    /// Runs `query`, handing each row's TEXT (as UTF-8, whatever the database's encoding: SQLite
    /// converts it) and BLOB cells to `row` (nil for other types), until `limit` bytes of them;
    /// returns why it stopped early, if it did.
    static func rows(
        in database: OpaquePointer, _ query: String, limit: Int, _ row: ([String], [[UInt8]?]) -> Void
    ) -> String? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(database, query, -1, &statement, nil) == SQLITE_OK, let statement else {
            return String(cString: sqlite3_errmsg(database))
        }
        defer { sqlite3_finalize(statement) }
        let count = sqlite3_column_count(statement)
        let columns = (0..<count).map { String(cString: sqlite3_column_name(statement, $0)) }
        var bytes = 0
        while true {
            let status = sqlite3_step(statement)
            guard status == SQLITE_ROW else {
                return status == SQLITE_DONE ? nil : String(cString: sqlite3_errmsg(database))
            }
            let cells = (0..<count).map { cell(statement, $0) }
            bytes += cells.reduce(0) { $0 + ($1?.count ?? 0) }
            row(columns, cells)
            if bytes >= limit { return stoppedAtLimit }
        }
    }

    private static func cell(_ statement: OpaquePointer, _ column: Int32) -> [UInt8]? {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(statement, column) else { return [] }
            return Array(UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, column))))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0, let blob = sqlite3_column_blob(statement, column) else { return [] }
            return Array(UnsafeRawBufferPointer(start: blob, count: count))
        default: return nil
        }
    }
}

/// Big-endian integers as SQLite's files store them.
extension [UInt8] {
    fileprivate func bigEndian32(at offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 << 8 | UInt32(self[offset + $1]) }
    }
}

/// SQLite's write-ahead log: a 32-byte header, then frames of a 24-byte header and one page.
/// A frame counts when its salts are the header's and the running checksum holds; the frames up
/// to the last commit frame among them (one that gives the database's size) are the database as
/// a reader sees it.
enum WriteAheadLog {
    static func applied(to database: [UInt8], log: [UInt8]) -> [UInt8]? {
        guard log.count >= 32 else { return nil }
        let magic = log.bigEndian32(at: 0)
        guard magic & 0xFFFF_FFFE == 0x377F_0682 else { return nil }
        let bigEndianChecksum = magic & 1 == 1
        let pageSize = Int(log.bigEndian32(at: 8))
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else { return nil }
        var checksum = Checksum(bigEndian: bigEndianChecksum)
        checksum.add(log, 0..<24)
        guard checksum.value == (log.bigEndian32(at: 24), log.bigEndian32(at: 28)) else { return nil }
        var image = database
        var pending: [(page: Int, offset: Int)] = []
        var committedSize: Int?
        var offset = 32
        while offset + 24 + pageSize <= log.count {
            guard log[offset + 8..<offset + 16].elementsEqual(log[16..<24]) else { break }
            checksum.add(log, offset..<offset + 8)
            checksum.add(log, offset + 24..<offset + 24 + pageSize)
            guard checksum.value == (log.bigEndian32(at: offset + 16), log.bigEndian32(at: offset + 20)) else { break }
            pending.append((Int(log.bigEndian32(at: offset)), offset + 24))
            let sizeAfterCommit = Int(log.bigEndian32(at: offset + 4))
            if sizeAfterCommit > 0 {
                for (page, start) in pending where page > 0 {
                    let end = page * pageSize
                    if image.count < end { image += [UInt8](repeating: 0, count: end - image.count) }
                    image.replaceSubrange((end - pageSize)..<end, with: log[start..<start + pageSize])
                }
                pending = []
                committedSize = sizeAfterCommit
            }
            offset += 24 + pageSize
        }
        guard let committedSize else { return nil }
        return Array(image.prefix(committedSize * pageSize))
    }

    /// The log's running checksum over 32-bit words, in the byte order its magic names.
    struct Checksum {
        let bigEndian: Bool
        var value: (UInt32, UInt32) = (0, 0)

        mutating func add(_ bytes: [UInt8], _ range: Range<Int>) {
            var (first, second) = value
            var index = range.lowerBound
            while index + 8 <= range.upperBound {
                first = first &+ word(bytes, index) &+ second
                second = second &+ word(bytes, index + 4) &+ first
                index += 8
            }
            value = (first, second)
        }

        private func word(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
            let value = bytes.bigEndian32(at: offset)
            return bigEndian ? value : value.byteSwapped
        }
    }
}

/// SQLite's rollback journal: while it is hot, its records hold the pages as they were before
/// the transaction, which a reader puts back before it reads. A header (magic, record count,
/// checksum nonce, the database's size before, sector and page size), padded to a sector; then
/// records of a page number, the page and a checksum. Playback stops at the first record whose
/// checksum fails, as SQLite's does.
enum RollbackJournal {
    static let magic: [UInt8] = [0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7]

    static func rolledBack(_ database: [UInt8], journal: [UInt8]) -> [UInt8]? {
        guard journal.count >= 28, journal.starts(with: magic) else { return nil }
        let recordCount = journal.bigEndian32(at: 8)
        let nonce = journal.bigEndian32(at: 12)
        let initialPages = Int(journal.bigEndian32(at: 16))
        let sectorSize = Int(journal.bigEndian32(at: 20))
        let pageSize = Int(journal.bigEndian32(at: 24))
        guard pageSize >= 512, pageSize <= 65536, sectorSize >= 32, sectorSize <= 65536 else { return nil }
        // All ones: as many records as the file holds.
        let most = recordCount == 0xFFFF_FFFF ? Int.max : Int(recordCount)
        var image = database
        var offset = sectorSize
        var played = 0
        while played < most, offset + 8 + pageSize <= journal.count {
            let page = Int(journal.bigEndian32(at: offset))
            let content = offset + 4..<offset + 4 + pageSize
            guard page > 0, checksum(journal, content, nonce: nonce) == journal.bigEndian32(at: content.upperBound)
            else { break }
            let end = page * pageSize
            if image.count < end { image += [UInt8](repeating: 0, count: end - image.count) }
            image.replaceSubrange((end - pageSize)..<end, with: journal[content])
            offset += 8 + pageSize
            played += 1
        }
        guard played > 0 else { return nil }
        return initialPages > 0 ? Array(image.prefix(initialPages * pageSize)) : image
    }

    /// The nonce plus every 200th byte of the page, from its end.
    private static func checksum(_ journal: [UInt8], _ page: Range<Int>, nonce: UInt32) -> UInt32 {
        var sum = nonce
        var index = page.count - 200
        while index >= 0 {
            sum = sum &+ UInt32(journal[page.lowerBound + index])
            index -= 200
        }
        return sum
    }
}
