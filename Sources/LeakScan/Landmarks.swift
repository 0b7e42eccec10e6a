#if canImport(Glibc)
    import Glibc
#endif

/// Where a buffer needs a closer look, found in one pass over its byte pairs (a bit table of the
/// pairs that start something): where a form of the canary prefix starts (UTF-16, JSON-escaped),
/// and where compressed data may. (Base64 is found as blocks of its characters: `Base64.blocks`.)
struct Landmarks {
    enum Form {
        case wideText, escapedText
    }

    var forms: [(at: Int, form: Form)] = []
    var compressed: [(at: Int, format: Compressed.Format)] = []

    /// The forms of the canary prefix searched for, and how each is read.
    static let needles: [(bytes: [UInt8], form: Form)] =
        [(WideText.core, .wideText), (EscapedText.marker, .escapedText)]

    /// The pairs that start a needle or compressed data, a bit each.
    private static let starts: [UInt64] = {
        var bits = [UInt64](repeating: 0, count: 1 << 10)
        let pairs = needles.map { ($0.bytes[0], $0.bytes[1]) } + Compressed.startingPairs
        for key in pairs.map(key) { bits[key >> 6] |= 1 << (key & 63) }
        return bits
    }()

    init(in bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count >= 2 else { return }
        let raw = UnsafeRawBufferPointer(bytes)
        Self.starts.withUnsafeBufferPointer { starts in
            for index in 0..<(bytes.count - 1) {
                let key = Int(UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt16.self)))
                guard starts[key >> 6] & 1 << (key & 63) != 0 else { continue }
                look(at: index, in: bytes)
            }
        }
    }

    private mutating func look(at index: Int, in bytes: UnsafeBufferPointer<UInt8>) {
        for needle in Self.needles
        where index + needle.bytes.count <= bytes.count
            && bytes[index..<index + needle.bytes.count].elementsEqual(needle.bytes)
        {
            forms.append((index, needle.form))
        }
        if let format = Compressed.format(at: index, in: bytes) { compressed.append((index, format)) }
    }

    private static func key(_ pair: (UInt8, UInt8)) -> Int { Int(pair.0) | Int(pair.1) << 8 }
}

/// Every place `needle` starts in `bytes`.
func positions(of needle: [UInt8], in bytes: UnsafeBufferPointer<UInt8>) -> [Int] {
    var found: [Int] = []
    var index = 0
    while let next = firstPosition(of: needle, in: bytes, from: index) {
        found.append(next)
        index = next + 1
    }
    return found
}

/// Where `needle` first starts in `bytes` at or after `start`: memchr for its first byte, then
/// a comparison.
func firstPosition(of needle: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
    guard let base = bytes.baseAddress, let first = needle.first else { return nil }
    var index = start
    while index + needle.count <= bytes.count {
        guard let hit = memchr(base + index, Int32(first), bytes.count - needle.count + 1 - index) else { return nil }
        let position = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
        if memcmp(base + position, needle, needle.count) == 0 { return position }
        index = position + 1
    }
    return nil
}
