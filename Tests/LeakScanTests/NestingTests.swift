import CBzip2
import CZlib
import CZstd
import Foundation
import SharedDevice
import TestSupport
import Testing

@testable import LeakScan

/// Decodings within decodings to any depth, base64 in any layout, every common compression,
/// and what cannot be read said as such.
@Suite(.ownThread) struct NestingTests {
    @Test func fiveLevelsOfNestingAreRead() throws {
        let container = try ScratchContainer()
        var data = record(canary(1))
        for level in 0..<5 { data = level % 2 == 0 ? base64(data) : gzipped(data) }
        try container.write(data, to: "nested.txt")
        #expect(container.sightings() == ["nested.txt [base64 > gzip > base64 > gzip > base64] \(canary(1))"])
    }

    /// Base64 of base64 of base64: no marker of the canary is left in the outer text, and it is
    /// read all the same.
    @Test func base64WithinBase64IsReadToAnyDepth() throws {
        let container = try ScratchContainer()
        var data = randomBytes(7) + record(canary(2))
        for _ in 0..<6 { data = Array("k=".utf8) + base64(data) }
        try container.write(data, to: "deep.txt")
        #expect(
            container.sightings() == [
                "deep.txt [\(Array(repeating: "base64", count: 6).joined(separator: " > "))] \(canary(2))"
            ])
    }

    /// YAML's `!!binary`: indented 76-column lines; lines of an odd length; groups split by spaces.
    @Test func base64IsReadInAnyLayout() throws {
        let container = try ScratchContainer()
        let encoded = String(decoding: base64(randomBytes(41) + record(canary(3)) + randomBytes(120)), as: UTF8.self)
        func lines(_ width: Int, indent: String) -> String {
            stride(from: 0, to: encoded.count, by: width).map { start in
                indent + String(Array(encoded)[start..<min(start + width, encoded.count)])
            }.joined(separator: "\n")
        }
        let groups = stride(from: 0, to: encoded.count, by: 4).map { start in
            String(Array(encoded)[start..<min(start + 4, encoded.count)])
        }.joined(separator: " ")
        try container.write(Array("key: !!binary |\n\(lines(76, indent: "    "))\nnext: 1\n".utf8), to: "a.yaml")
        try container.write(Array("data:\n\(lines(70, indent: "\t"))\n".utf8), to: "b.txt")
        try container.write(Array("dump: \(groups) end\n".utf8), to: "c.txt")
        #expect(
            container.sightings() == [
                "a.yaml [base64] \(canary(3))", "b.txt [base64] \(canary(3))", "c.txt [base64] \(canary(3))",
            ])
    }

    @Test func zipEntriesAreReadWithEveryCommonMethod() throws {
        let container = try ScratchContainer()
        try python(
            """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w") as archive:
                archive.writestr("b.txt", sys.argv[2] + " bzip2 " * 50, zipfile.ZIP_BZIP2)
                archive.writestr("l.txt", sys.argv[3] + " lzma " * 50, zipfile.ZIP_LZMA)
            """, [container.path("archive.zip"), "\(canary(4))", "\(canary(5))"])
        let text = record(canary(6)) + Array(repeating: 0x2E, count: 300)
        let zstdArchive = zipArchive(name: "z.txt", method: 93, data: zstd(text), of: text)
        try container.write(zstdArchive, to: "z.zip")
        try container.write(zipArchive(name: "x.txt", method: 95, data: try xz(text), of: text), to: "x.zip")
        // zstd keeps short literals as they are: the canary is plain text in the archive too.
        #expect(
            container.sightings() == [
                // The bzip2 and xz streams are read where they lie in the archive too.
                "archive.zip [bzip2, zip:b.txt] \(canary(4))", "archive.zip [zip:l.txt] \(canary(5))",
                "x.zip [xz, zip:x.txt] \(canary(6))", "z.zip [] \(canary(6))",
            ])
        var reader = CanaryReader()
        #expect(
            Set(reader.canaries(in: zstdArchive).map { $0.route.joined(separator: " > ") }) == [
                "", "zstd", "zip:z.txt",
            ])
        #expect(container.scan().isComplete)
    }

    @Test func bzip2XzAndZstdFilesAreRead() throws {
        let container = try ScratchContainer()
        let text = record(canary(7)) + Array(repeating: 0x2E, count: 300)
        try container.write(randomBytes(10) + bzip2(text), to: "a.bz2")
        try container.write(randomBytes(10) + (try xz(text)), to: "b.xz")
        try container.write(randomBytes(10) + zstd(text), to: "c.zst")
        #expect(
            container.sightings() == ["a.bz2 [bzip2] \(canary(7))", "b.xz [xz] \(canary(7))", "c.zst [] \(canary(7))"])
        var reader = CanaryReader()
        #expect(
            Set(
                reader.canaries(in: try contents(of: container.path("c.zst"))).map { $0.route.joined(separator: " > ") }
            ) == ["", "zstd"])
    }

    /// An entry of a method not read, or encrypted, that its archive lists: the scan says so.
    /// The same header by chance in other bytes says nothing.
    @Test func aZipEntryThatCannotBeReadIsNamed() throws {
        let container = try ScratchContainer()
        let text = record(canary(8))
        try container.write(zipArchive(name: "notes.txt", method: 99, data: text, of: text), to: "aes.zip")
        try container.write(
            zipArchive(name: "notes.txt", method: 0, data: randomBytes(40), of: randomBytes(40), flags: 1),
            to: "locked.zip")
        try container.write(randomBytes(100) + ZipEntry.signature + randomBytes(100), to: "noise.bin")
        let scan = container.scan()
        #expect(
            scan.unreadable.map { "\($0.place): \($0.reason)" } == [
                "aes.zip: zip entry notes.txt cannot be read: Unsupported ZIP compression method (99: aes)",
                "locked.zip: zip entry notes.txt is encrypted: Passphrase required for this entry",
            ])
    }

    /// Records past 64 MiB of a gzip stream's output are read (the budget is 256 MiB).
    @Test func aGzipStreamIsReadPastSixtyFourMebibytes() throws {
        let container = try ScratchContainer()
        try container.write(gzipped(Array(repeating: 0x20, count: 80 << 20) + record(canary(9))), to: "big.gz")
        let scan = container.scan()
        #expect(scan.isComplete)
        #expect(scan.map(\.canary) == [canary(9)])
    }

    /// Past the budget, the scan is incomplete and says where it stopped.
    @Test func reachingTheDecodedBudgetIsNamed() throws {
        let container = try ScratchContainer()
        try container.write(gzipped(Array(repeating: 0x20, count: 3 << 20) + record(canary(10))), to: "big.gz")
        let scan = LeakScanner(
            container: container.root, app: "notes", budget: .init(decodedBytes: 1 << 20)
        ).scan()
        #expect(scan.isEmpty)
        #expect(
            scan.unreadable.map(\.description) == [
                "incomplete: \(container.path("big.gz")): decoded past the budget of 1 MiB a file is read to (gzip at byte 0)"
            ])
    }

    // MARK: - Making encoded data

    private func base64(_ bytes: [UInt8]) -> [UInt8] { Array(Data(bytes).base64EncodedString().utf8) }

    private func gzipped(_ bytes: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        #expect(
            deflateInit2_(
                &stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
                Int32(MemoryLayout<z_stream>.size)) == Z_OK)
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))) + 64)
        var input = bytes
        let produced = input.withUnsafeMutableBufferPointer { input in
            output.withUnsafeMutableBufferPointer { output in
                stream.next_in = input.baseAddress
                stream.avail_in = UInt32(input.count)
                stream.next_out = output.baseAddress
                stream.avail_out = UInt32(output.count)
                #expect(deflate(&stream, Z_FINISH) == Z_STREAM_END)
                return output.count - Int(stream.avail_out)
            }
        }
        return Array(output.prefix(produced))
    }

    private func bzip2(_ bytes: [UInt8]) -> [UInt8] {
        var output = [CChar](repeating: 0, count: bytes.count * 2 + 600)
        var length = UInt32(output.count)
        var input = bytes.map { CChar(bitPattern: $0) }
        #expect(BZ2_bzBuffToBuffCompress(&output, &length, &input, UInt32(input.count), 9, 0, 0) == BZ_OK)
        return output.prefix(Int(length)).map { UInt8(bitPattern: $0) }
    }

    private func zstd(_ bytes: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: ZSTD_compressBound(bytes.count))
        let length = ZSTD_compress(&output, output.count, bytes, bytes.count, 3)
        #expect(ZSTD_isError(length) == 0)
        return Array(output.prefix(length))
    }

    private func xz(_ bytes: [UInt8]) throws -> [UInt8] {
        let container = try ScratchContainer()
        try container.write(bytes, to: "input")
        try python(
            "import lzma, sys; open(sys.argv[2], 'wb').write(lzma.compress(open(sys.argv[1], 'rb').read()))",
            [container.path("input"), container.path("output")])
        return try contents(of: container.path("output"))
    }

    /// A zip archive of one entry, local header, data and central directory, as the format lays them out.
    /// A zip archive of one entry, `data` compressed with `method` from `plain`.
    private func zipArchive(name: String, method: Int, data: [UInt8], of plain: [UInt8], flags: Int = 0) -> [UInt8] {
        func little(_ value: Int, _ count: Int) -> [UInt8] {
            (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        }
        let checksum = Int(plain.withUnsafeBufferPointer { crc32(0, $0.baseAddress, UInt32($0.count)) })
        let common =
            little(63, 2) + little(flags, 2) + little(method, 2) + little(0, 4) + little(checksum, 4)
            + little(data.count, 4) + little(plain.count, 4) + little(name.utf8.count, 2) + little(0, 2)
        let local = ZipEntry.signature + common + Array(name.utf8) + data
        let central =
            ZipEntry.centralSignature + little(63, 2) + common + little(0, 2) + little(0, 2) + little(0, 2)
            + little(0, 4) + little(0, 4) + Array(name.utf8)
        let end =
            [0x50, 0x4B, 0x05, 0x06] + little(0, 4) + little(1, 2) + little(1, 2) + little(central.count, 4)
            + little(local.count, 4) + little(0, 2)
        return local + central + end
    }
}
