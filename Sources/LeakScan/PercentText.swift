#if canImport(Glibc)
    import Glibc
#endif

/// Text with `%XX` escapes, as URLs, their caches and form bodies keep it (`%2F` for `/`).
enum PercentText {
    /// The text with each `%XX` read as its byte, or nil when it has no such escape.
    static func unescaped(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard let base = bytes.baseAddress, memchr(base, Int32(UInt8(ascii: "%")), bytes.count) != nil else {
            return nil
        }
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count)
        var index = 0
        var escapes = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = digit(bytes[index + 1]), let low = digit(bytes[index + 2])
            {
                text.append(high << 4 | low)
                index += 3
                escapes += 1
            } else {
                text.append(bytes[index])
                index += 1
            }
        }
        return escapes > 0 ? text : nil
    }

    private static func digit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
