import SharedDevice

/// ASCII text stored as UTF-16, in either byte order (binary plists store text that is not all
/// ASCII as UTF-16BE).
enum WideText {
    /// `SDLAB-CANARY/` with a zero byte between its characters: how both byte orders store it,
    /// short of the zero before it (big-endian) or after it (little-endian).
    static let core: [UInt8] = Array(Canary.prefix.utf8.flatMap { [$0, 0] }.dropLast())
    /// The most characters read at a hit: more than any canary.
    static let longest = 512

    /// The canaries in the UTF-16 text whose `core` is at `start`, with its byte order:
    /// `utf16le` or `utf16be`.
    static func canaries(at start: Int, in bytes: UnsafeBufferPointer<UInt8>) -> [(Canary, String)] {
        guard let text = text(at: start, in: bytes) else { return [] }
        return Canary.all(inUTF8: text.characters).map { ($0, text.order) }
    }

    /// The ASCII text from `start`, in the byte order that reads more of it. The same bytes
    /// read little-endian from `start` and big-endian from the zero before it, and differ only
    /// in where the text ends; when that is the same too, the order whose text starts at an
    /// even offset wins (text written as UTF-16 is usually aligned).
    static func text(at start: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (characters: [UInt8], order: String)? {
        let little = ascii(from: start, highByteAfter: true, in: bytes)
        let big = start > 0 ? ascii(from: start, highByteAfter: false, in: bytes) : []
        let readings = [(little, "utf16le"), (big, "utf16be")].filter { $0.0.count >= Canary.prefix.utf8.count }
        guard readings.count == 2 else { return readings.first }
        return big.count > little.count || (big.count == little.count && start % 2 == 1) ? readings[1] : readings[0]
    }

    /// The ASCII characters one every other byte from `start`, while the byte beside each (its
    /// high byte, after it or before it) is zero.
    static func ascii(from start: Int, highByteAfter: Bool, in bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var characters: [UInt8] = []
        var index = start
        while characters.count < longest, index < bytes.count, (1..<0x80).contains(bytes[index]) {
            let high = highByteAfter ? index + 1 : index - 1
            guard high < bytes.count, bytes[high] == 0 else { break }
            characters.append(bytes[index])
            index += 2
        }
        return characters
    }
}
