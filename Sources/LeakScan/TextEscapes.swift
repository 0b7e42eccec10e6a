#if canImport(Glibc)
    import Glibc
#endif

/// Text written with escapes, read unescaped: percent escapes (`%2F`, URLs and their caches),
/// character references (`&#47;`, `&#x2F;`, `&amp;`: XML and HTML), backslash escapes (`\u002F`,
/// `\x2F`, `\/`: JSON, JavaScript and C strings outside a document Foundation parses), and hex
/// (`53444c41…`: a record kept as the hex of its bytes). Only the stretches of text that hold
/// them are read, so that binary data around them (a cache's records, a database's pages) is
/// not rewritten into something it is not.
enum TextEscapes {
    /// Each escaped stretch unescaped, with how (`percent`, `entities`, `escapes`, `hex`).
    static func decodings(in bytes: UnsafeBufferPointer<UInt8>) -> [(label: String, text: [UInt8])] {
        var found: [(label: String, text: [UInt8])] = []
        let (stretches, hexRuns) = find(in: bytes)
        for stretch in stretches {
            let text = UnsafeBufferPointer(rebasing: bytes[stretch])
            if text.contains(UInt8(ascii: "%")), let plain = unescaped(text, by: percent) {
                found.append(("percent", plain))
            }
            if text.contains(UInt8(ascii: "&")), let plain = unescaped(text, by: reference) {
                found.append(("entities", plain))
            }
            if text.contains(UInt8(ascii: "\\")), let plain = unescaped(text, by: backslash) {
                found.append(("escapes", plain))
            }
        }
        for run in hexRuns {
            found.append(("hex", decodedHex(bytes[run])))
            // A run of odd length: its first digit may belong to the text before it.
            if run.count % 2 == 1 { found.append(("hex", decodedHex(bytes[(run.lowerBound + 1)..<run.upperBound]))) }
        }
        return found
    }

    /// What each byte is, a bit each: printable ASCII, an escape's first byte (`%`, `&`, `\`), a
    /// hex digit.
    private static let classes: [UInt8] = (0..<256).map { byte in
        var bits: UInt8 = 0
        if (0x20...0x7E).contains(byte) { bits |= printable }
        if [0x25, 0x26, 0x5C].contains(byte) { bits |= escapeStart }
        if digit(UInt8(byte)) != nil { bits |= hexDigit }
        return bits
    }
    private static let printable: UInt8 = 1
    private static let escapeStart: UInt8 = 2
    private static let hexDigit: UInt8 = 4

    /// In one pass: the stretches of printable ASCII that hold an escape's first byte, and the
    /// runs of hex digits long enough to hold a canary's prefix (two digits a byte).
    private static func find(in bytes: UnsafeBufferPointer<UInt8>) -> (stretches: [Range<Int>], hexRuns: [Range<Int>]) {
        let shortest = CanaryReader.shortest
        var stretches: [Range<Int>] = []
        var hexRuns: [Range<Int>] = []
        var stretchStart = 0
        var escaped = false
        var runStart = 0
        classes.withUnsafeBufferPointer { classes in
            for index in 0...bytes.count {
                let bits = index < bytes.count ? classes[Int(bytes[index])] : 0
                if bits & hexDigit == 0 {
                    if index - runStart >= 2 * shortest { hexRuns.append(runStart..<index) }
                    runStart = index + 1
                }
                if bits & printable != 0 {
                    if bits & escapeStart != 0 { escaped = true }
                    continue
                }
                if escaped, index - stretchStart >= shortest { stretches.append(stretchStart..<index) }
                stretchStart = index + 1
                escaped = false
            }
        }
        return (stretches, hexRuns)
    }

    /// An escape at the start of `text`: the bytes it stands for and its length; nil for none.
    private typealias Escape = (UnsafeBufferPointer<UInt8>.SubSequence) -> (bytes: [UInt8], length: Int)?

    /// The text with every escape `escape` reads unescaped; nil when it has none.
    private static func unescaped(_ text: UnsafeBufferPointer<UInt8>, by escape: Escape) -> [UInt8]? {
        var plain: [UInt8] = []
        plain.reserveCapacity(text.count)
        var index = 0
        var escapes = 0
        while index < text.count {
            if let (bytes, length) = escape(text[index...]) {
                plain += bytes
                index += length
                escapes += 1
            } else {
                plain.append(text[index])
                index += 1
            }
        }
        return escapes > 0 ? plain : nil
    }

    /// `%XX`.
    private static func percent(_ text: UnsafeBufferPointer<UInt8>.SubSequence) -> ([UInt8], Int)? {
        guard text.first == UInt8(ascii: "%"), let byte = hexByte(text.dropFirst().prefix(2)) else { return nil }
        return ([byte], 3)
    }

    /// `&#DDD;`, `&#xHH;` and the five XML entities.
    private static func reference(_ text: UnsafeBufferPointer<UInt8>.SubSequence) -> ([UInt8], Int)? {
        guard text.first == UInt8(ascii: "&"), let end = text.prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
            return nil
        }
        let name = String(decoding: text[(text.startIndex + 1)..<end], as: UTF8.self)
        let length = end - text.startIndex + 1
        let named = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'"]
        if let character = named[name] { return (Array(character.utf8), length) }
        guard name.hasPrefix("#") else { return nil }
        let number = name.dropFirst()
        let value = number.first == "x" || number.first == "X" ? UInt32(number.dropFirst(), radix: 16) : UInt32(number)
        guard let value, let scalar = Unicode.Scalar(value) else { return nil }
        return (Array(String(scalar).utf8), length)
    }

    /// `\uXXXX`, `\xHH`, `\/`.
    private static func backslash(_ text: UnsafeBufferPointer<UInt8>.SubSequence) -> ([UInt8], Int)? {
        guard text.first == UInt8(ascii: "\\"), text.count >= 2 else { return nil }
        let kind = text[text.startIndex + 1]
        let digits = text.dropFirst(2)
        switch kind {
        case UInt8(ascii: "/"): return ([UInt8(ascii: "/")], 2)
        case UInt8(ascii: "x"):
            return hexByte(digits.prefix(2)).map { ([$0], 4) }
        case UInt8(ascii: "u"):
            guard digits.count >= 4, let high = hexByte(digits.prefix(2)),
                let low = hexByte(digits.dropFirst(2).prefix(2)),
                let scalar = Unicode.Scalar(UInt32(high) << 8 | UInt32(low))
            else { return nil }
            return (Array(String(scalar).utf8), 6)
        default: return nil
        }
    }

    private static func decodedHex(_ digits: UnsafeBufferPointer<UInt8>.SubSequence) -> [UInt8] {
        stride(from: digits.startIndex, to: digits.endIndex - 1, by: 2).map { index in
            digit(digits[index])! << 4 | digit(digits[index + 1])!
        }
    }

    private static func hexByte(_ digits: UnsafeBufferPointer<UInt8>.SubSequence) -> UInt8? {
        guard digits.count == 2, let high = digit(digits[digits.startIndex]),
            let low = digit(digits[digits.startIndex + 1])
        else { return nil }
        return high << 4 | low
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
