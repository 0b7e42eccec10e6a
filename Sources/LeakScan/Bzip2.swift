import CBzip2

/// bzip2 data, as a `.bz2` file holds it and as zip method 12 does: `BZh` and a block size.
enum Bzip2 {
    /// `BZh1` to `BZh9`, then a block's magic number or the end-of-stream one.
    static func starts(at index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard index + 10 <= bytes.count, bytes[index] == 0x42, bytes[index + 1] == 0x5A, bytes[index + 2] == 0x68,
            (0x31...0x39).contains(bytes[index + 3])
        else { return false }
        let next = Array(bytes[(index + 4)..<(index + 10)])
        return next == [0x31, 0x41, 0x59, 0x26, 0x53, 0x59] || next == [0x17, 0x72, 0x45, 0x38, 0x50, 0x90]
    }

    /// Decompresses the stream at the start of `input` into at most `limit` bytes.
    static func decompress(_ input: UnsafeBufferPointer<UInt8>, limit: Int) -> Decompressed {
        guard let base = input.baseAddress else { return .nothing }
        var stream = bz_stream()
        guard BZ2_bzDecompressInit(&stream, 0, 0) == BZ_OK else { return .nothing }
        defer { BZ2_bzDecompressEnd(&stream) }
        var chunk = [CChar](repeating: 0, count: 64 << 10)
        var output: [UInt8] = []
        var consumed = 0
        var status = BZ_OK
        while status == BZ_OK, output.count < limit {
            if stream.avail_in == 0 {
                let slice = min(input.count - consumed, Int(UInt32.max))
                if slice == 0 { break }
                stream.next_in = UnsafeMutableRawPointer(mutating: base + consumed).assumingMemoryBound(to: CChar.self)
                stream.avail_in = UInt32(slice)
                consumed += slice
            }
            let room = min(chunk.count, limit - output.count)
            status = chunk.withUnsafeMutableBufferPointer { chunk in
                stream.next_out = chunk.baseAddress
                stream.avail_out = UInt32(room)
                return BZ2_bzDecompress(&stream)
            }
            output += chunk[..<(room - Int(stream.avail_out))].map { UInt8(bitPattern: $0) }
        }
        return Decompressed(
            output: output, consumed: consumed - Int(stream.avail_in), ended: status == BZ_STREAM_END,
            failed: status < 0)
    }
}
