import SharedDevice

/// ASCII text stored as UTF-32 (`String.Encoding.utf32`, a C `wchar_t`): each character is
/// followed by three zero bytes in little-endian order, and in big-endian order by the three of
/// the next, so one pattern finds both.
enum Utf32Text {
    /// The canary prefix, its characters three zero bytes apart.
    static let core: [UInt8] = Array(Canary.prefix.utf8.flatMap { [$0, 0, 0, 0] }.dropLast(3))

    /// The canaries in the UTF-32 text of `bytes`.
    static func canaries(in bytes: UnsafeBufferPointer<UInt8>) -> [Canary] {
        positions(of: core, in: bytes).flatMap { Canary.all(inUTF8: ascii(from: $0, in: bytes)) }
    }

    /// The ASCII characters one every four bytes from `start`, while three zero bytes follow
    /// each; the last one read without them (big-endian text's last character has none after it).
    private static func ascii(from start: Int, in bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var characters: [UInt8] = []
        var index = start
        while characters.count < WideText.longest, index < bytes.count, (1..<0x80).contains(bytes[index]) {
            characters.append(bytes[index])
            guard index + 3 < bytes.count, bytes[index + 1] == 0, bytes[index + 2] == 0, bytes[index + 3] == 0 else {
                break
            }
            index += 4
        }
        return characters
    }
}
