import CZlib
import Foundation
import SharedDevice
import TestSupport
import Testing

@testable import LeakScan

/// Canaries in compressed data: a cleanup that compresses data has not removed it.
@Suite(.ownThread) struct CompressionTests {
    @Test func gzipIsReadAnywhereInAFile() throws {
        let container = try ScratchContainer()
        let first = try gzip(record(canary(1)), in: container)
        // Compressible, or deflate would store it as it is.
        let second = try gzip(record(canary(2)) + Array(repeating: 0x2E, count: 5000), in: container)
        try container.write(randomBytes(1000) + first + Array("between".utf8) + second, to: "caches/notes.bin")
        #expect(
            container.sightings() == ["caches/notes.bin [gzip] \(canary(1))", "caches/notes.bin [gzip] \(canary(2))"])
    }

    @Test func zlibIsRead() throws {
        let container = try ScratchContainer()
        try container.write(Array("zlib:".utf8) + zlibCompressed(record(canary(3))), to: "caches/notes.z")
        #expect(container.sightings() == ["caches/notes.z [zlib] \(canary(3))"])
    }

    @Test func zipEntriesAreReadStoredDeflatedAndStreamed() throws {
        let container = try ScratchContainer()
        let script = """
            import sys, zipfile
            class Stream:
                # No seek or tell: zipfile writes each entry's sizes after its data (flag bit 3).
                def __init__(self, file): self.file = file
                def write(self, data): return self.file.write(data)
                def flush(self): self.file.flush()
            def fill(archive, prefix):
                archive.writestr(prefix + "stored.txt", sys.argv[3] + " stored", zipfile.ZIP_STORED)
                archive.writestr(prefix + "deflated.txt", sys.argv[4] + " deflated " * 50, zipfile.ZIP_DEFLATED)
            with zipfile.ZipFile(sys.argv[1], "w") as archive: fill(archive, "")
            with open(sys.argv[2], "wb") as file:
                with zipfile.ZipFile(Stream(file), "w") as archive: fill(archive, "streamed-")
            """
        try python(
            script, [container.path("archive.zip"), container.path("streamed.zip"), "\(canary(4))", "\(canary(5))"])
        let streamed = try contents(of: container.path("streamed.zip"))
        #expect(streamed[6] & 0x08 != 0, "the streamed archive's entries have data descriptors")
        #expect(
            container.sightings() == [
                // A stored entry's bytes are in the file as they are: read as plain text, one finding.
                "archive.zip [] \(canary(4))", "archive.zip [zip:deflated.txt] \(canary(5))",
                "streamed.zip [] \(canary(4))", "streamed.zip [zip:streamed-deflated.txt] \(canary(5))",
            ])
        // Stored entries are read as entries too: the reader tells every way.
        for (archive, prefix) in [("archive.zip", ""), ("streamed.zip", "streamed-")] {
            var reader = CanaryReader()
            let sightings = reader.canaries(in: try contents(of: container.path(archive)))
            #expect(
                Set(sightings.map { "\($0.route.joined(separator: " > ")) \($0.canary.number)" }) == [
                    " 4", "zip:\(prefix)stored.txt 4", "zip:\(prefix)deflated.txt 5",
                ])
        }
    }

    @Test func base64InGzipInZipIsRead() throws {
        let container = try ScratchContainer()
        let encoded = Data(randomBytes(1) + record(canary(6))).base64EncodedString()
        let compressed = try gzip(Array("payload: \(encoded)\n".utf8), in: container)
        try container.write(compressed, to: "notes.txt.gz")
        try python(
            """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as archive:
                archive.write(sys.argv[2], "notes.txt.gz")
            """, [container.path("bundle.zip"), container.path("notes.txt.gz")])
        try FileManager.default.removeItem(atPath: container.path("notes.txt.gz"))
        #expect(container.sightings() == ["bundle.zip [gzip > base64] \(canary(6))"])
    }

    /// Ciphertext-like bytes full of magic numbers and near-misses read as nothing, and quickly.
    @Test func randomBytesWithFakeMagicNumbersReadNothing() throws {
        let container = try ScratchContainer()
        let fakes: [[UInt8]] = [
            [0x1F, 0x8B, 0x08], [0x78, 0x9C], [0x78, 0xDA], [0x78, 0x01], [0x08, 0x1D], [0x50, 0x4B, 0x03, 0x04],
            Array("H4sI".utf8), Array("UEsDB".utf8), Array("U0RMQUItQ0FOQVJZL".utf8), Array("TRExBQi1DQU5BUlkv".utf8),
            Array("SDLAB-CANARY/".utf8), Array("SDLAB-CANARY\\/".utf8), Array("S\0D\0L\0A\0B\0-\0C\0".utf8),
        ]
        var bytes: [UInt8] = []
        while bytes.count < 1 << 20 { bytes += randomBytes(Int.random(in: 0..<64)) + fakes.randomElement()! }
        try container.write(bytes, to: "documents/cou1/sensitive-1-9.sealed")
        let start = ContinuousClock.now
        #expect(container.scan().isEmpty)
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    /// 1 GiB of zeros deflated into a zip entry of 1 MiB: the reader stops at its budget, and
    /// the scan says the file was not read whole.
    @Test func aZipBombStopsAtTheBudgetAndSaysSo() throws {
        let container = try ScratchContainer()
        let bomb = zipEntry(name: "zeros.bin", deflated: deflatedZeros(gibibytes: 1))
        try container.write(bomb, to: "caches/bomb.zip")
        var reader = CanaryReader(budget: 32 << 20)
        let start = ContinuousClock.now
        #expect(reader.canaries(in: bomb).isEmpty)
        #expect(reader.budget == 0, "it decoded exactly the budget")
        #expect(
            reader.problems == ["decoded past the budget of 32 MiB a file is read to (zip:zeros.bin)"])
        let scan = LeakScanner(container: container.root, app: "notes", budget: .init(decodedBytes: 32 << 20)).scan()
        #expect(scan.isEmpty && !scan.isComplete)
        #expect(scan.unreadable.map(\.place) == ["caches/bomb.zip"])
        #expect(ContinuousClock.now - start < .seconds(60))
    }

    // MARK: - Making compressed data

    /// What /bin/gzip makes of `bytes`.
    private func gzip(_ bytes: [UInt8], in container: ScratchContainer) throws -> [UInt8] {
        let (input, output) = (container.path("gzip-input"), container.path("gzip-output"))
        try Data(bytes).write(to: URL(fileURLWithPath: input))
        try run(["/bin/gzip", "-c", input], output: output)
        defer { for path in [input, output] { try? FileManager.default.removeItem(atPath: path) } }
        return try contents(of: output)
    }

    private func zlibCompressed(_ bytes: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(compressBound(uLong(bytes.count))))
        var length = uLongf(output.count)
        #expect(compress(&output, &length, bytes, uLong(bytes.count)) == Z_OK)
        return Array(output.prefix(Int(length)))
    }

    /// Raw deflate of that many GiB of zeros: one MiB deflated with a full flush (which makes
    /// it stand alone), repeated, then a last empty block.
    private func deflatedZeros(gibibytes: Int) -> [UInt8] {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        #expect(
            deflateInit2_(
                stream, Z_BEST_COMPRESSION, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY, zlibVersion(),
                Int32(MemoryLayout<z_stream>.size)) == Z_OK)
        defer { deflateEnd(stream) }
        var zeros = [UInt8](repeating: 0, count: 1 << 20)
        var output = [UInt8](repeating: 0, count: 1 << 20)
        let produced = zeros.withUnsafeMutableBufferPointer { zeros in
            output.withUnsafeMutableBufferPointer { output in
                stream.pointee.next_in = zeros.baseAddress
                stream.pointee.avail_in = UInt32(zeros.count)
                stream.pointee.next_out = output.baseAddress
                stream.pointee.avail_out = UInt32(output.count)
                #expect(deflate(stream, Z_FULL_FLUSH) == Z_OK)
                return output.count - Int(stream.pointee.avail_out)
            }
        }
        // A final fixed-Huffman block holding only its end.
        return Array(repeating: output.prefix(produced), count: gibibytes << 10).flatMap { $0 } + [0x03, 0x00]
    }

    /// A zip local file header and its deflated data.
    private func zipEntry(name: String, deflated: [UInt8]) -> [UInt8] {
        func little(_ value: Int, _ size: Int) -> [UInt8] {
            (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        }
        let header =
            [0x50, 0x4B, 0x03, 0x04] + little(20, 2) + little(0, 2) + little(8, 2) + little(0, 4) + little(0, 4)
            + little(deflated.count, 4) + little(0xFFFF_FFFF, 4) + little(name.utf8.count, 2) + little(0, 2)
        return header + Array(name.utf8) + deflated
    }
}
