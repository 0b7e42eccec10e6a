import CLzma

/// xz files (and zip method 95), and the raw LZMA of zip method 14, through liblzma.
enum LZMA {
    static let xzMagic: [UInt8] = [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]
    /// lzma.h's macros Swift does not import: the end of a filter list, the LZMA1 filter, and
    /// the decoder flag that reads concatenated streams.
    private static let filtersEnd: lzma_vli = .max
    private static let lzma1: lzma_vli = 0x4000_0000_0000_0001
    private static let concatenated: UInt32 = 0x08

    /// An `.xz` stream (its magic number first) at the start of `input`, into at most `limit` bytes.
    static func decompressXZ(_ input: UnsafeBufferPointer<UInt8>, limit: Int) -> Decompressed {
        var stream = lzma_stream()
        guard lzma_stream_decoder(&stream, UInt64.max, concatenated) == LZMA_OK else { return .nothing }
        return run(&stream, input, limit: limit)
    }

    /// A zip entry of method 14: its version (2 bytes), the size of the properties (2 bytes),
    /// the properties, then LZMA1 data (ended by its end marker when the entry's flag bit 1 says so).
    static func decompressZipEntry(_ input: UnsafeBufferPointer<UInt8>, limit: Int) -> Decompressed {
        guard input.count >= 4 else { return .nothing }
        let propertiesSize = Int(input[2]) | Int(input[3]) << 8
        guard input.count >= 4 + propertiesSize, let base = input.baseAddress else { return .nothing }
        var filters = [lzma_filter](repeating: lzma_filter(id: filtersEnd, options: nil), count: 2)
        filters[0].id = lzma1
        guard lzma_properties_decode(&filters[0], nil, base + 4, propertiesSize) == LZMA_OK else { return .nothing }
        defer { free(filters[0].options) }
        var stream = lzma_stream()
        guard lzma_raw_decoder(&stream, filters) == LZMA_OK else { return .nothing }
        var result = run(&stream, UnsafeBufferPointer(rebasing: input[(4 + propertiesSize)...]), limit: limit)
        result.consumed += 4 + propertiesSize
        return result
    }

    private static func run(
        _ stream: inout lzma_stream, _ input: UnsafeBufferPointer<UInt8>, limit: Int
    ) -> Decompressed {
        defer { lzma_end(&stream) }
        stream.next_in = input.baseAddress
        stream.avail_in = input.count
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var output: [UInt8] = []
        var status = LZMA_OK
        while status == LZMA_OK, output.count < limit {
            let room = min(chunk.count, limit - output.count)
            status = chunk.withUnsafeMutableBufferPointer { chunk in
                stream.next_out = chunk.baseAddress
                stream.avail_out = room
                return lzma_code(&stream, stream.avail_in == 0 ? LZMA_FINISH : LZMA_RUN)
            }
            output += chunk[..<(room - stream.avail_out)]
        }
        let failed = status != LZMA_OK && status != LZMA_STREAM_END && status != LZMA_BUF_ERROR
        return Decompressed(
            output: output, consumed: input.count - stream.avail_in, ended: status == LZMA_STREAM_END, failed: failed)
    }
}

#if canImport(Glibc)
    import Glibc
#endif
