#if canImport(Glibc)
    import Glibc
#endif

/// Text with `%XX` escapes, as URLs, their caches and form bodies keep it (`%2F` for `/`).
enum PercentText {
    /// Each stretch of URL text (printable ASCII, no space) that holds an escape, with each
    /// `%XX` read as its byte: the stretches alone, so that binary data around them (a cache's
    /// records, a database's pages) is not rewritten into something it is not.
    static func unescaped(_ bytes: UnsafeBufferPointer<UInt8>) -> [[UInt8]] {
        guard let base = bytes.baseAddress else { return [] }
        var stretches: [[UInt8]] = []
        var search = 0
        while search < bytes.count, let hit = memchr(base + search, Int32(UInt8(ascii: "%")), bytes.count - search) {
            let at = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
            var start = at
            while start > 0, isURLByte(bytes[start - 1]) { start -= 1 }
            var end = at
            while end < bytes.count, isURLByte(bytes[end]) { end += 1 }
            if let text = unescaped(UnsafeBufferPointer(rebasing: bytes[start..<end])) { stretches.append(text) }
            search = max(end, at + 1)
        }
        return stretches
    }

    /// The text with each `%XX` read as its byte, or nil when it has no such escape.
    private static func unescaped(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count)
        var index = 0
        var escapes = 0
        while index < text.count {
            if text[index] == UInt8(ascii: "%"), index + 2 < text.count,
                let high = digit(text[index + 1]), let low = digit(text[index + 2])
            {
                bytes.append(high << 4 | low)
                index += 3
                escapes += 1
            } else {
                bytes.append(text[index])
                index += 1
            }
        }
        return escapes > 0 ? bytes : nil
    }

    private static func isURLByte(_ byte: UInt8) -> Bool { (0x21...0x7E).contains(byte) }

    private static func digit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
