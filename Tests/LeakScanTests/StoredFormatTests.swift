import Crypto
import Foundation
import SharedDevice
import TestSupport
import Testing

@testable import LeakScan

/// What an app stores through SQLite, property lists and archives is read back as the app reads
/// it, even where the format splits or re-encodes the bytes a search looks for.
@Suite(.ownThread) struct StoredFormatTests {
    /// Notes as a forgotten table keeps them: each body longer than a page, its canary 8 bytes
    /// further in than the row before's, so that over a page's length of rows some fall across
    /// an overflow page's header.
    private static let longNotes = """
        import sqlite3, sys
        database = sqlite3.connect(sys.argv[1])
        database.execute("PRAGMA secure_delete=OFF")
        database.execute("PRAGMA journal_mode=" + sys.argv[2])
        database.execute("CREATE TABLE drafts (id INTEGER PRIMARY KEY, body TEXT)")
        for number in range(1, \(notes + 1)):
            canary = "SDLAB-CANARY/cou1/notes/plain/%d " % number
            text = "x" * (number * 8) + canary + "y" * (6000 - number * 8 - len(canary))
            database.execute("INSERT INTO drafts (body) VALUES (?)", (text,))
        database.commit()
        """
    private static let notes = 520

    @Test func rowsLongerThanAPageAreReadWhole() throws {
        let container = try ScratchContainer()
        let database = container.path("Documents/drafts.sqlite")
        try FileManager.default.createDirectory(
            atPath: container.path("Documents"), withIntermediateDirectories: true)
        try python(Self.longNotes, [database, "DELETE"])
        let whole = Self.wholeCanaryNumbers(in: String(decoding: try contents(of: database), as: UTF8.self))
        let split = (1...Self.notes).filter { !whole.contains($0) }
        #expect(!split.isEmpty, "some canary falls across an overflow page's header")
        let found = container.scan()
        #expect(Set(found.map(\.canary)) == Set((1...Self.notes).map { canary($0) }))
        for number in split {
            #expect(found.first { $0.canary == canary(number) }?.via == "sqlite:drafts.body")
        }
    }

    /// The numbers of the notes whose canary is whole in `raw`, in one pass over it (a search
    /// per note took seconds).
    private static func wholeCanaryNumbers(in raw: String) -> Set<Int> {
        Set(
            raw.components(separatedBy: "SDLAB-CANARY/cou1/notes/plain/").dropFirst().compactMap { after in
                let digits = after.prefix(while: \.isNumber)
                return after.dropFirst(digits.count).first == " " ? Int(digits) : nil
            })
    }

    @Test func rowsStillInTheWriteAheadLogAreReadWhole() throws {
        let container = try ScratchContainer()
        let database = container.path("Documents/drafts.sqlite")
        try FileManager.default.createDirectory(
            atPath: container.path("Documents"), withIntermediateDirectories: true)
        // Killed before a checkpoint: the rows are in the log only.
        try python(Self.longNotes + "\nimport os\nos._exit(0)\n", [database, "WAL"])
        #expect(try contents(of: database + "-wal").count > 100_000)
        let found = container.scan()
        #expect(Set(found.map(\.canary)) == Set((1...Self.notes).map { canary($0) }))
        #expect(found.contains { $0.place == "Documents/drafts.sqlite" && $0.via == "sqlite:drafts.body" })
    }

    @Test func compressedBlobsInLongRowsAreRead() throws {
        let container = try ScratchContainer()
        let database = container.path("Library/attachments.db")
        try FileManager.default.createDirectory(atPath: container.path("Library"), withIntermediateDirectories: true)
        try python(
            """
            import gzip, os, sqlite3, sys
            database = sqlite3.connect(sys.argv[1])
            database.execute("CREATE TABLE attachments (id INTEGER PRIMARY KEY, data BLOB)")
            for number in range(1, 6):
                text = os.urandom(6000).hex() + " SDLAB-CANARY/cou1/notes/sensitive/%d " % number + os.urandom(6000).hex()
                database.execute("INSERT INTO attachments (data) VALUES (?)", (gzip.compress(text.encode()),))
            database.commit()
            """, [database])
        let found = container.scan()
        #expect(Set(found.map(\.canary)) == Set((1...5).map { canary($0, .sensitive) }))
        #expect(found.allSatisfy { $0.via == "sqlite:attachments.data > gzip" })
    }

    @Test func aDatabaseInUTF16IsReadAsText() throws {
        let container = try ScratchContainer()
        let database = container.path("wide.sqlite")
        try python(
            """
            import sqlite3, sys
            database = sqlite3.connect(sys.argv[1])
            database.execute("PRAGMA encoding='UTF-16be'")
            database.execute("CREATE TABLE notes (body TEXT)")
            text = "Schichtübergabe " * 400 + "SDLAB-CANARY/cou1/notes/plain/7"
            database.execute("INSERT INTO notes VALUES (?)", (text,))
            database.commit()
            """, [database])
        #expect(container.scan().contains { $0.canary == canary(7) && $0.via.contains("sqlite:notes.body") })
    }

    @Test func aDamagedDatabaseIsNamedAsNotRead() throws {
        let container = try ScratchContainer()
        let database = container.path("broken.sqlite")
        try python(Self.longNotes, [database, "DELETE"])
        var bytes = try contents(of: database)
        // The schema's page: its b-tree header says a page type no database has.
        bytes[100] = 0x77
        try Data(bytes).write(to: URL(fileURLWithPath: database))
        let scan = container.scan()
        #expect(!scan.isComplete)
        #expect(scan.unreadable.contains { $0.place == "broken.sqlite" && $0.reason.contains("database") })
    }

    @Test func binaryPropertyListsWithAccentedTitlesAreRead() throws {
        let container = try ScratchContainer()
        let plist = container.path("Library/drafts.plist")
        try FileManager.default.createDirectory(atPath: container.path("Library"), withIntermediateDirectories: true)
        // A Codable draft: the title is not all ASCII, so the binary plist keeps it as UTF-16;
        // the attachment is base64 inside such a string.
        try python(
            """
            import base64, plistlib, sys
            drafts = [{"title": "Übergabe SDLAB-CANARY/cou1/notes/plain/%d" % n,
                       "attachment": "é " + base64.b64encode(b"SDLAB-CANARY/cou1/notes/sensitive/%d" % n).decode()}
                      for n in range(1, 4)]
            open(sys.argv[1], "wb").write(plistlib.dumps(drafts, fmt=plistlib.FMT_BINARY))
            """, [plist])
        let found = container.scan()
        let expected = (1...3).flatMap { [canary($0), canary($0, .sensitive)] }
        #expect(Set(found.map(\.canary)) == Set(expected))
        #expect(found.filter { $0.canary.kind == .sensitive }.allSatisfy { $0.via == "plist > base64" })
    }

    @Test func keyedArchivesAndJSONEscapesAreRead() throws {
        let container = try ScratchContainer()
        try python(
            """
            import plistlib, sys
            archive = {"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": plistlib.UID(1)},
                       "$objects": ["$null", "Schicht SDLAB-CANARY/cou1/notes/plain/1 ändern"]}
            open(sys.argv[1] + "/archive", "wb").write(plistlib.dumps(archive, fmt=plistlib.FMT_BINARY))
            """, [container.root])
        try container.write(Array(#"{"n": "\u0053DLAB-CANARY\u002fcou1\/notes/plain/2"}"#.utf8), to: "notes.json")
        let found = container.scan()
        #expect(found.contains { $0.canary == canary(1) && $0.via.contains("keyed-archive") })
        #expect(found.contains { $0.canary == canary(2) && $0.via.contains("json") })
    }

    @Test func percentEncodedRecordsAreRead() throws {
        let container = try ScratchContainer()
        try container.write(
            Array("https://example.com/n?q=SDLAB-CANARY%2Fcou1%2Fnotes%2Fplain%2F4&x=1".utf8), to: "url")
        #expect(container.scan().map(\.via) == ["percent"])
    }

    @Test func sealedRecordsInsideAZipAreOpenedWithTheKeychainsKey() throws {
        let container = try ScratchContainer()
        let key = SymmetricKey(size: .bits256)
        let sealed = try AES.GCM.seal(record(canary(5, .sensitive)), using: key).combined!
        try container.write(Array(sealed), to: "tmp/sealed")
        // The key as a keychain keeps it: base64 in its items file.
        let secret = key.withUnsafeBytes { Data($0).base64EncodedString() }
        try container.write(Array("{\"items\":[{\"data\":\"\(secret)\"}]}".utf8), to: "keychain/items.json")
        try python(
            """
            import os, sys, zipfile
            with zipfile.ZipFile(sys.argv[1] + "/Documents.zip", "w", zipfile.ZIP_DEFLATED) as archive:
                archive.write(sys.argv[1] + "/tmp/sealed", "records/sealed.bin")
            os.remove(sys.argv[1] + "/tmp/sealed")
            """, [container.root])
        let found = container.scan()
        #expect(found.map(\.canary) == [canary(5, .sensitive)])
        #expect(found.first?.encrypted == true)
        #expect(found.first?.via.hasSuffix("aes-gcm") == true)
    }

    /// An .eml whose attachment is base64 of UTF-16 text, and a subject in an encoded word.
    @Test func mailIsReadPartByPart() throws {
        let container = try ScratchContainer()
        try python(
            """
            import sys
            from email.message import EmailMessage
            mail = EmailMessage()
            subject = "Übergabe SDLAB-CANARY/cou1/notes/plain/1".encode()
            encoded = "Subject: =?utf-8?q?" + "".join("=%02X" % byte for byte in subject) + "?=\\n"
            mail["From"] = "cou1@example.com"
            mail.set_content("see attachment")
            text = "Schichtbericht SDLAB-CANARY/cou1/notes/sensitive/2 Ende".encode("utf-16")
            mail.add_attachment(text, maintype="application", subtype="octet-stream", filename="report.txt")
            open(sys.argv[1], "wb").write(encoded.encode() + bytes(mail))
            """, [container.path("outbox.eml")])
        let raw = try contents(of: container.path("outbox.eml"))
        #expect(!String(decoding: raw, as: UTF8.self).contains("SDLAB-CANARY"), "the mail hides both")
        let found = container.scan()
        #expect(Set(found.map(\.canary)) == [canary(1), canary(2, .sensitive)])
        #expect(found.allSatisfy { $0.via.contains("mime:") })
    }

    @Test func tarArchivesAreReadEntryByEntry() throws {
        let container = try ScratchContainer()
        try container.write(record(canary(6)), to: "export/notes-6.txt")
        try run(["tar", "-cf", container.path("export.tar"), "-C", container.root, "export"])
        try FileManager.default.removeItem(atPath: container.path("export"))
        let found = container.scan()
        #expect(found.map(\.canary) == [canary(6)])
        #expect(found.first?.place == "export.tar")
    }

    @Test func zstdMadeWithADictionaryIsReadWithTheOneBesideIt() throws {
        let container = try ScratchContainer()
        for number in 1...40 { try container.write(record(canary(number)), to: "samples/\(number)") }
        let samples = (1...40).map { container.path("samples/\($0)") }
        try run(
            ["zstd", "-q", "--train", "--maxdict=4096", "--dictID=77", "-o", container.path("notes.dict")] + samples)
        try container.write(record(canary(50)), to: "note")
        try run([
            "zstd", "-q", "-D", container.path("notes.dict"), container.path("note"), "-o", container.path("note.zst"),
        ])
        for file in ["samples", "note"] { try FileManager.default.removeItem(atPath: container.path(file)) }
        // The dictionary holds the samples it was trained on: records too.
        #expect(container.scan().filter { $0.place == "note.zst" }.map(\.canary) == [canary(50)])
        // Without its dictionary, the frame is named as not read.
        try FileManager.default.removeItem(atPath: container.path("notes.dict"))
        let scan = container.scan()
        #expect(!scan.isComplete)
        #expect(
            scan.unreadable.map(\.reason) == [
                "zstd frame at byte 0 needs dictionary 77, which is not in the container"
            ])
    }

    /// CryptoKit's other cipher, ChaCha20-Poly1305, its key a property list's data.
    @Test func chaChaPolyBoxesAreOpenedToo() throws {
        let container = try ScratchContainer()
        let key = SymmetricKey(size: .bits256)
        let sealed = try ChaChaPoly.seal(record(canary(10, .sensitive)), using: key).combined
        try container.write(Array(sealed), to: "Library/Caches/draft.bin")
        let plist = try PropertyListSerialization.data(
            fromPropertyList: ["draftKey": key.withUnsafeBytes { Data($0) }], format: .binary, options: 0)
        try container.write(Array(plist), to: "Library/Preferences/app.plist")
        let found = container.scan()
        #expect(found.map(\.canary) == [canary(10, .sensitive)])
        #expect(found.first?.via == "chachapoly")
        #expect(found.first?.encrypted == true)
    }

    /// Every value that may be sealed is tried under every key: past the scan's budget of tries,
    /// what was not tried is named, never taken for clean.
    @Test func sealedBoxesPastTheBudgetOfTriesAreNamed() throws {
        let container = try ScratchContainer()
        let key = SymmetricKey(size: .bits256)
        try container.write(key.withUnsafeBytes { Array($0) }, to: "keychain/app.key")
        let sealed = try AES.GCM.seal(record(canary(9, .sensitive)), using: key).combined!
        try container.write(Array(sealed), to: "documents/note.sealed")
        #expect(container.scan().map(\.canary) == [canary(9, .sensitive)])
        let scan = LeakScanner(
            container: container.root, app: "notes", budget: LeakScanner.Budget(sealedTries: 16)
        ).scan()
        #expect(scan.isEmpty)
        // The key is a value that may be sealed too.
        #expect(scan.unreadable.map(\.place) == ["documents/note.sealed", "keychain/app.key"])
        #expect(
            scan.unreadable.allSatisfy {
                $0.reason == "its 1 values that may be sealed boxes were not tried under all 1 possible keys: "
                    + "more than the 16 bytes a scan tries"
            })
    }

    /// Records written with escapes: hex of their bytes, XML character references, backslash
    /// escapes outside a JSON document, percent escapes; each read back, and binary bytes
    /// around them left as they are.
    @Test func recordsWrittenWithEscapesAreRead() throws {
        let container = try ScratchContainer()
        let hex = record(canary(11)).map {
            String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16)
        }
        try container.write(Array(("id=" + hex.joined() + ";").utf8), to: "hex.txt")
        try container.write(Array("<n>SDLAB-CANARY&#47;cou1&#x2F;notes&#47;plain&#47;12</n>".utf8), to: "page.html")
        try container.write(Array(#"var n = "\u0053DLAB-CANARY\x2fcou1\/notes/plain/13";"#.utf8), to: "app.js")
        try container.write(
            randomBytes(64) + Array("q=SDLAB-CANARY%2Fcou1%2Fnotes%2Fplain%2F14&x".utf8) + randomBytes(64),
            to: "cache.db")
        #expect(
            container.sightings() == [
                "app.js [escapes] \(canary(13))", "cache.db [percent] \(canary(14))", "hex.txt [hex] \(canary(11))",
                "page.html [entities] \(canary(12))",
            ])
    }

    /// UTF-32 text, as `String.Encoding.utf32` and a C `wchar_t` keep it, in either byte order.
    @Test func utf32TextIsRead() throws {
        let container = try ScratchContainer()
        try container.write(Array(Data("Übergabe \(canary(15))".data(using: .utf32LittleEndian)!)), to: "le.txt")
        try container.write(Array(Data("\(canary(16))".data(using: .utf32BigEndian)!)), to: "be.txt")
        #expect(container.sightings() == ["be.txt [utf32] \(canary(16))", "le.txt [utf32] \(canary(15))"])
    }
}
