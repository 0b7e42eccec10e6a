import CZlib

/// zlib's inflate (gzip, zlib and raw deflate), set up once per file and reset for each stream,
/// so that a false start costs a reset and the few bytes read before the first error.
final class Inflater {
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private var chunk = [UInt8](repeating: 0, count: 64 << 10)
    private let ready: Bool

    init() {
        stream.initialize(to: z_stream())
        ready = inflateInit2_(stream, 15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK
    }

    deinit {
        if ready { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Inflates the stream at the start of `input` (`windowBits` as zlib takes them: 15 + 32
    /// for gzip or zlib by its header, -15 for raw deflate) into at most `limit` bytes.
    func inflate(_ input: UnsafeBufferPointer<UInt8>, windowBits: Int32, limit: Int) -> Decompressed {
        guard ready, let base = input.baseAddress, inflateReset2(stream, windowBits) == Z_OK else { return .nothing }
        // A reset leaves the previous stream's input behind.
        stream.pointee.avail_in = 0
        var output: [UInt8] = []
        var consumed = 0
        var status = Z_OK
        // avail_in is 32 bits: larger input is handed over in slices.
        while status == Z_OK, output.count < limit {
            if stream.pointee.avail_in == 0 {
                let slice = min(input.count - consumed, Int(UInt32.max))
                if slice == 0 { break }
                stream.pointee.next_in = UnsafeMutablePointer(mutating: base + consumed)
                stream.pointee.avail_in = UInt32(slice)
                consumed += slice
            }
            let room = min(chunk.count, limit - output.count)
            status = chunk.withUnsafeMutableBufferPointer { chunk in
                stream.pointee.next_out = chunk.baseAddress
                stream.pointee.avail_out = UInt32(room)
                return CZlib.inflate(stream, Z_NO_FLUSH)
            }
            output += chunk[..<(room - Int(stream.pointee.avail_out))]
            if status == Z_BUF_ERROR, stream.pointee.avail_in == 0, consumed < input.count { status = Z_OK }
        }
        return Decompressed(
            output: output, consumed: consumed - Int(stream.pointee.avail_in), ended: status == Z_STREAM_END,
            failed: status == Z_DATA_ERROR || status == Z_NEED_DICT || status == Z_MEM_ERROR
                || status == Z_STREAM_ERROR)
    }
}
