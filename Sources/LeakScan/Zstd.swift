import CZstd

/// Zstandard frames, as a `.zst` file holds them and as zip method 93 does.
enum Zstd {
    static let magic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]

    /// The frames at the start of `input`, into at most `limit` bytes. A frame made with a
    /// dictionary is read with the one of `dictionaries` it names; when that one is not there,
    /// the reading stops at the frame with its ID (`Decompressed.missingDictionary`).
    static func decompress(
        _ input: UnsafeBufferPointer<UInt8>, limit: Int, dictionaries: ZstdDictionaries = ZstdDictionaries()
    ) -> Decompressed {
        guard let stream = ZSTD_createDStream() else { return .nothing }
        defer { ZSTD_freeDStream(stream) }
        var source = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var output: [UInt8] = []
        var ended = false
        var failed = false
        var atFrameStart = true
        while output.count < limit, !failed {
            if atFrameStart {
                switch useDictionary(for: input, at: source.pos, in: stream, from: dictionaries) {
                case .ready: atFrameStart = false
                case .missing(let id):
                    return Decompressed(
                        output: output, consumed: source.pos, ended: false, failed: false, missingDictionary: id)
                case .refused: return Decompressed(output: output, consumed: source.pos, ended: false, failed: true)
                }
            }
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
                atFrameStart = true
                if source.pos == source.size || !input[source.pos...].starts(with: magic) { break }
            } else {
                ended = false
                if produced == 0, source.pos == source.size { break }
            }
        }
        return Decompressed(output: output, consumed: source.pos, ended: ended, failed: failed)
    }

    private enum DictionaryUse {
        case ready
        case missing(UInt32)
        case refused
    }

    /// Gives `stream` the dictionary the frame at `start` names, or none when it names none
    /// (a dictionary stays loaded for the frames after the one it was loaded for).
    private static func useDictionary(
        for input: UnsafeBufferPointer<UInt8>, at start: Int, in stream: OpaquePointer,
        from dictionaries: ZstdDictionaries
    ) -> DictionaryUse {
        let rest = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(input)[start...])
        let id = ZSTD_getDictID_fromFrame(rest.baseAddress, rest.count)
        if id == 0 {
            return ZSTD_isError(ZSTD_DCtx_loadDictionary(stream, nil, 0)) == 0 ? .ready : .refused
        }
        guard let dictionary = dictionaries[id] else { return .missing(id) }
        let loaded = dictionary.withUnsafeBytes { ZSTD_DCtx_loadDictionary(stream, $0.baseAddress, $0.count) }
        return ZSTD_isError(loaded) == 0 ? .ready : .refused
    }
}

extension Zstd {
    /// The dictionary the frame at the start of `frame` was made with; nil for none.
    static func dictionaryID(of frame: UnsafeBufferPointer<UInt8>) -> UInt32? {
        let id = ZSTD_getDictID_fromFrame(frame.baseAddress, frame.count)
        return id == 0 ? nil : id
    }
}

/// The zstd dictionaries a container holds, by the ID each carries (`zstd --train` writes them):
/// a frame made with one names its ID and cannot be read without it.
struct ZstdDictionaries: Sendable {
    /// A dictionary's first bytes; its ID follows.
    static let magic: [UInt8] = [0x37, 0xA4, 0x30, 0xEC]

    private var byID: [UInt32: [UInt8]] = [:]

    init() {}

    /// The IDs held, in order.
    var ids: [UInt32] { byID.keys.sorted() }

    /// Keeps `bytes` when they are a dictionary zstd loads: true then.
    mutating func add(_ bytes: [UInt8]) -> Bool {
        guard bytes.starts(with: Self.magic) else { return false }
        let id = bytes.withUnsafeBytes { bytes -> UInt32? in
            guard let dictionary = ZSTD_createDDict(bytes.baseAddress, bytes.count) else { return nil }
            defer { ZSTD_freeDDict(dictionary) }
            return ZSTD_getDictID_fromDDict(dictionary)
        }
        guard let id, id != 0 else { return false }
        byID[id] = bytes
        return true
    }

    /// The dictionary whose ID is `id`.
    subscript(id: UInt32) -> [UInt8]? { byID[id] }
}
