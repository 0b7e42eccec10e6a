import Foundation
import LeakScan
import SharedDevice
import Testing

/// Canaries stored as text other than plain UTF-8: UTF-16, base64, JSON with escaped slashes.
@Suite struct EncodingTests {
    @Test func utf16TextIsReadInBothByteOrders() throws {
        let container = try ScratchContainer()
        let little = "note: \(canary(1)) end".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let big = "note: \(canary(2)) end".utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        try container.write([0xFF, 0xFE] + little, to: "documents/little.txt")
        // At an odd offset, as strings lie in binary files.
        try container.write([0x6F] + big + [0x5A], to: "documents/big.bin")
        #expect(
            container.sightings() == [
                "documents/big.bin [utf16be] \(canary(2))", "documents/little.txt [utf16le] \(canary(1))",
            ])
    }

    /// A binary plist (what UserDefaults writes) stores ASCII strings as they are, followed by
    /// the next object's marker byte, and other strings as UTF-16BE.
    @Test func binaryPlistStringsAreRead() throws {
        let container = try ScratchContainer()
        let plist = container.path("Library/Preferences/notes.plist")
        try FileManager.default.createDirectory(
            atPath: container.path("Library/Preferences"), withIntermediateDirectories: true)
        try python(
            """
            import plistlib, sys
            values = {"a": sys.argv[2], "b": "xyz", "c": sys.argv[3]}
            open(sys.argv[1], "wb").write(plistlib.dumps(values, fmt=plistlib.FMT_BINARY))
            """, [plist, "\(canary(3, .preferences))", "café \(canary(4, .preferences)) ok"])
        let bytes = try contents(of: plist)
        let ascii = Array("\(canary(3, .preferences))".utf8)
        let end = try #require(bytes.indices.first { bytes[$0...].starts(with: ascii) }) + ascii.count
        #expect(Character(Unicode.Scalar(bytes[end])).isLetter, "the next object's marker is a letter")
        #expect(
            container.sightings() == [
                "Library/Preferences/notes.plist [] \(canary(3, .preferences))",
                "Library/Preferences/notes.plist [plist, utf16be] \(canary(4, .preferences))",
            ])
    }

    @Test(arguments: 0...3) func base64IsReadAtEveryByteOffset(offset: Int) throws {
        let container = try ScratchContainer()
        let data = Data(randomBytes(offset) + record(canary(10 + offset)))
        try container.write(Array("{\"data\":\"\(data.base64EncodedString())\"}".utf8), to: "keychain/items.json")
        #expect(container.sightings() == ["keychain/items.json [base64] \(canary(10 + offset))"])
    }

    @Test func base64IsReadInLinesAndInTheUrlSafeAlphabet() throws {
        let container = try ScratchContainer()
        let data = Data(randomBytes(100) + record(canary(20)) + randomBytes(200))
        let lines64 = data.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        let lines76 = data.base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn])
        let urlSafe = data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        try container.write(Array(lines64.utf8), to: "a.pem")
        try container.write(Array(("-----\r\n" + lines76 + "\r\n-----").utf8), to: "b.pem")
        try container.write(Array("token=\(urlSafe)&x=1".utf8), to: "c.txt")
        #expect(
            container.sightings() == [
                "a.pem [base64] \(canary(20))", "b.pem [base64] \(canary(20))", "c.txt [base64] \(canary(20))",
            ])
    }

    /// Data in an XML plist: base64 in indented lines.
    @Test func xmlPlistDataIsRead() throws {
        let container = try ScratchContainer()
        try python(
            """
            import plistlib, sys
            value = {"blob": bytes(range(37)) + sys.argv[2].encode() + bytes(range(200))}
            open(sys.argv[1], "wb").write(plistlib.dumps(value, fmt=plistlib.FMT_XML))
            """, [container.path("notes.plist"), "\(canary(21))"])
        #expect(try String(contentsOfFile: container.path("notes.plist"), encoding: .utf8).contains("\t"))
        #expect(container.sightings() == ["notes.plist [base64, plist] \(canary(21))"])
    }

    /// Foundation's JSONEncoder escapes slashes, in strings and in the base64 of data alike.
    @Test func jsonWithEscapedSlashesIsRead() throws {
        struct Item: Codable {
            var account: String
            var secret: Data
        }
        let container = try ScratchContainer()
        // The last digit first in its group of three and followed by 0xFF: its second character,
        // which completes the digit, is a slash.
        let secret = Data([0xFF, 0xFF, 0xFF] + Array("\(canary(3))".utf8) + [0xFF, 0xFF])
        #expect(secret.base64EncodedString().hasPrefix("////") && secret.base64EncodedString().hasSuffix("M///"))
        let json = try JSONEncoder().encode(Item(account: "\(canary(1))", secret: secret))
        #expect(String(decoding: json, as: UTF8.self).contains("CANARY\\/"))
        try container.write(Array(json), to: "keychain/items.json")
        #expect(
            container.sightings() == [
                "keychain/items.json [base64] \(canary(3))", "keychain/items.json [escapes, json] \(canary(1))",
            ])
    }

    /// A canary's token ends at the first byte no canary holds, and its number at the first
    /// byte that is not a digit; a digit right after it still merges into the number.
    @Test func aCanaryFollowedByBinaryDataReads() {
        let text = Array("\(canary(7))".utf8)
        #expect(Canary.all(inUTF8: text + [0x00, 0x41]) == [canary(7)])
        #expect(Canary.all(inUTF8: text + Array("Urecord".utf8)) == [canary(7)])
        #expect(Canary.all(inUTF8: Array("(\(canary(7)))".utf8)) == [canary(7)])
        #expect(Canary.all(inUTF8: text + Array("9".utf8)) == [canary(79)])
        #expect(Canary.all(inUTF8: text + Array("/edit/2".utf8)) == [canary(7)])
        #expect(Canary.all(inUTF8: Array("SDLAB-CANARY/cou1/notes/plain/x7".utf8)).isEmpty)
    }

    @Test func plainTextIsReadAsBefore() throws {
        let container = try ScratchContainer()
        try container.write(record(canary(1)) + record(canary(2)), to: "documents/cou1/plain-1-2.txt")
        #expect(container.scan().map(\.via) == ["", ""])
        #expect(container.scan().map(\.canary) == [canary(1), canary(2)])
    }
}
