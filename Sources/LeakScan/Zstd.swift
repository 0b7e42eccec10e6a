import CZstd

/// Zstandard frames, as a `.zst` file holds them and as zip method 93 does.
enum Zstd {
    static let magic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]

    /// The frames at the start of `input`, into at most `limit` bytes.
    static func decompress(_ input: UnsafeBufferPointer<UInt8>, limit: Int) -> Decompressed {
        guard let stream = ZSTD_createDStream() else { return .nothing }
        defer { ZSTD_freeDStream(stream) }
        var source = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var output: [UInt8] = []
        var ended = false
        var failed = false
        while output.count < limit, !failed {
            let room = min(chunk.count, limit - output.count)
            let (left, produced) = chunk.withUnsafeMutableBytes { chunk in
                var target = ZSTD_outBuffer(dst: chunk.baseAddress, size: room, pos: 0)
                let left = ZSTD_decompressStream(stream, &target, &source)
                return (left, target.pos)
            }
            output += chunk[..<produced]
            if ZSTD_isError(left) != 0 {
                failed = true
            } else if left == 0 {
                // A frame ended: another may follow.
                ended = true
                if source.pos == source.size || !input[source.pos...].starts(with: magic) { break }
            } else {
                ended = false
                if produced == 0, source.pos == source.size { break }
            }
        }
        return Decompressed(output: output, consumed: source.pos, ended: ended, failed: failed)
    }
}
