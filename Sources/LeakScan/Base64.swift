import SharedDevice

/// Base64 text as files hold it: either alphabet (standard `+/`, URL-safe `-_`), with or without
/// padding, in lines of any length, indented or not, in groups split by white space, inside
/// JSON strings (`\/`, `\n`).
enum Base64 {
    /// The characters of an encoding that depend on the encoded bytes alone, whatever surrounds
    /// them.
    struct Marker {
        var text: [UInt8]
        /// The position of its first character in its group of four.
        var lead: Int
    }

    /// Shorter blocks are not decoded: nothing that holds a canary, or compressed data, encodes
    /// to fewer characters.
    static let shortestBlock = 16

    static let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    static let urlSafe = Array(standard.dropLast(2)) + Array("-_".utf8)

    /// Each byte's sextet in either alphabet; 0xFF for the rest.
    static let sextets: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in standard.enumerated() { table[Int(character)] = UInt8(value) }
        for (value, character) in urlSafe.enumerated() { table[Int(character)] = UInt8(value) }
        return table
    }()

    /// The canary prefix at each byte offset in a group of three, and the magic numbers of
    /// compressed data at the start of the data, in both alphabets: where a block holds one,
    /// it is also decoded in the alignment the marker calls for (base64 run into other text).
    static let markers: [Marker] = {
        let magic = [[0x1F, 0x8B, 0x08], ZipEntry.signature, Array("BZh".utf8), LZMA.xzMagic, Zstd.magic]
        let wanted = (0..<3).map { (Array(Canary.prefix.utf8), $0) } + magic.map { ($0, 0) }
        let all = wanted.flatMap { bytes, shift in
            [standard, urlSafe].map { marker(of: bytes, shift: shift, alphabet: $0) }
        }
        return all.enumerated().filter { index, marker in !all[..<index].contains { $0.text == marker.text } }.map {
            $0.element
        }
    }()

    /// The characters encoding `bytes` placed `shift` bytes into a group of three that their
    /// bits alone make.
    static func marker(of bytes: [UInt8], shift: Int, alphabet: [UInt8]) -> Marker {
        let bits = [UInt8](repeating: 0, count: shift) + bytes + [0]
        let first = (8 * shift + 5) / 6
        let text = (first..<(8 * (shift + bytes.count) / 6)).map { character in
            let offset = 6 * character
            let pair = UInt16(bits[offset / 8]) << 8 | UInt16(bits[offset / 8 + 1])
            return alphabet[Int(pair >> (10 - offset % 8) & 0x3F)]
        }
        return Marker(text: text, lead: first % 4)
    }

    /// A stretch of base64 text: its characters (white space and escapes left out) and where
    /// it starts in the buffer.
    struct Block {
        var start: Int
        var characters: [UInt8]
    }

    /// Every block of base64 text of at least `shortestBlock` characters. A block is base64
    /// characters (`\/` read as `/`) in pieces split by white space (spaces, tabs, line breaks,
    /// JSON's `\n`, `\r`, `\t`): a line break always joins two pieces (lines of any length,
    /// indented or not); spaces and tabs alone join them when the piece before is whole groups
    /// of four (groups split by spaces), so words of a text stay apart.
    static func blocks(in bytes: UnsafeBufferPointer<UInt8>) -> [Block] {
        sextets.withUnsafeBufferPointer { sextets in
            spans(in: bytes, sextets: sextets).map { span in
                Block(start: span.lowerBound, characters: characters(in: bytes[span], sextets: sextets))
            }
        }
    }

    /// Where each block lies, found without copying a character: most stretches of letters are
    /// words, too short to keep.
    private static func spans(in bytes: UnsafeBufferPointer<UInt8>, sextets: UnsafeBufferPointer<UInt8>)
        -> [Range<Int>]
    {
        var spans: [Range<Int>] = []
        var start = 0
        var end = 0
        var count = 0
        var piece = 0
        var gap = false
        var lineBreak = false
        func finish() {
            if count >= shortestBlock { spans.append(start..<end) }
            count = 0
            piece = 0
            gap = false
            lineBreak = false
        }
        var index = 0
        while index < bytes.count {
            let (isCharacter, spaceBreaksLine, width) = read(bytes, at: index, sextets: sextets)
            if isCharacter {
                if gap {
                    if lineBreak || piece % 4 == 0 {
                        piece = 0
                    } else {
                        finish()
                    }
                    gap = false
                    lineBreak = false
                }
                if count == 0 { start = index }
                count += 1
                piece += 1
                end = index + width
            } else if let spaceBreaksLine {
                if count > 0 {
                    gap = true
                    lineBreak = lineBreak || spaceBreaksLine
                }
            } else {
                finish()
            }
            index += width
        }
        finish()
        return spans
    }

    /// The base64 characters of a block's span, white space and escapes left out.
    private static func characters(in span: Slice<UnsafeBufferPointer<UInt8>>, sextets: UnsafeBufferPointer<UInt8>)
        -> [UInt8]
    {
        let bytes = UnsafeBufferPointer(rebasing: span)
        var characters: [UInt8] = []
        characters.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let (isCharacter, _, width) = read(bytes, at: index, sextets: sextets)
            if isCharacter { characters.append(width == 2 ? UInt8(ascii: "/") : bytes[index]) }
            index += width
        }
        return characters
    }

    /// What the byte at `index` is: a base64 character (`\/` is one, two bytes wide), white
    /// space (and whether it breaks a line: JSON's `\n`, `\r` and `\t` are white space too), or
    /// neither; and how many bytes it takes.
    @inline(__always)
    private static func read(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int, sextets: UnsafeBufferPointer<UInt8>)
        -> (isCharacter: Bool, spaceBreaksLine: Bool?, width: Int)
    {
        let byte = bytes[index]
        if sextets[Int(byte)] != 0xFF { return (true, nil, 1) }
        switch byte {
        case 0x0A, 0x0D, 0x0B, 0x0C: return (false, true, 1)
        case 0x20, 0x09: return (false, false, 1)
        case UInt8(ascii: "\\") where index + 1 < bytes.count:
            switch bytes[index + 1] {
            case UInt8(ascii: "/"): return (true, nil, 2)
            case UInt8(ascii: "n"), UInt8(ascii: "r"): return (false, true, 2)
            case UInt8(ascii: "t"): return (false, false, 2)
            default: return (false, nil, 1)
            }
        default: return (false, nil, 1)
        }
    }

    /// Whether `bytes` are base64 and nothing else (padding and white space aside).
    static func isWhole(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        sextets.withUnsafeBufferPointer { sextets in
            bytes.allSatisfy { sextets[Int($0)] != 0xFF || $0 == UInt8(ascii: "=") || $0 == 0x0A || $0 == 0x0D }
        }
    }

    /// Where groups of four start in `text`: at its start, and for each marker it holds, where
    /// that marker's groups start (0 to 3).
    static func alignments(in text: [UInt8]) -> [Int] {
        let found = text.withUnsafeBufferPointer { text in
            markers.flatMap { marker in positions(of: marker.text, in: text).map { (($0 - marker.lead) % 4 + 4) % 4 } }
        }
        return Set(found + [0]).sorted()
    }

    /// The bytes `text` encodes, at most `limit`; a last group of two or three characters gives
    /// one or two bytes.
    static func decode(_ text: ArraySlice<UInt8>, limit: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(text.count / 4 * 3 + 2, limit))
        var bits: UInt32 = 0
        var held = 0
        sextets.withUnsafeBufferPointer { sextets in
            for character in text where bytes.count < limit {
                bits = bits << 6 | UInt32(sextets[Int(character)])
                held += 6
                guard held >= 8 else { continue }
                held -= 8
                bytes.append(UInt8(truncatingIfNeeded: bits >> held))
            }
        }
        return bytes
    }
}
