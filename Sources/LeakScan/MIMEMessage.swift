import CFormatLibraries

#if canImport(Glibc)
    import Glibc
#endif

/// A mail message, or any MIME entity, read as GMime reads it: every header's value with its
/// RFC 2047 words decoded, every leaf part's content with its transfer encoding (base64,
/// quoted-printable, uuencode) undone and converted from the charset it names to UTF-8, the
/// attachments' file names, and the messages attached as message/rfc822, to any depth GMime
/// parses. What it cannot read is a problem naming the part: a charset it has no conversion
/// for, an encrypted part.
enum MIMEMessage {
    /// Header names of which a message has at least one, lowercased.
    static let telltaleNames: Set<[UInt8]> = Set(
        ["content-type", "mime-version", "from", "to", "subject", "message-id", "date"].map { Array($0.utf8) })
    private static let longestTelltale = telltaleNames.map(\.count).max() ?? 0

    /// What `bytes` hold as a message, with at most `limit` bytes of values; nil unless they
    /// are one by structure (`isMessage`).
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, limit: Int) -> FormatReading? {
        guard isMessage(bytes), let start = bytes.baseAddress else { return nil }
        let collector = Collector(LimitedReading(limit: limit))
        var error: UnsafePointer<CChar>?
        let status = sdlab_mime_read(
            start, bytes.count, collectItem, Unmanaged.passUnretained(collector).toOpaque(), &error)
        if status != 0 {
            let reason = error.map { String(cString: $0) } ?? "no reason given"
            collector.limited.problem("a mail message was not read: \(reason)")
        }
        return collector.limited.reading
    }

    /// Whether `bytes` start as a message does: header lines (`Name: value`, or a folded
    /// continuation) from the first byte to an empty line, one of them a telltale header.
    /// Decided on the first line for most other bytes.
    static func isMessage(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        var sawTelltale = false
        while index < bytes.count {
            if isEmptyLine(bytes, at: index) { return sawTelltale }
            if bytes[index] == space || bytes[index] == tab {
                guard index > 0 else { return false }
            } else {
                guard let colon = fieldNameEnd(in: bytes, from: index) else { return false }
                sawTelltale = sawTelltale || isTelltale(bytes, from: index, to: colon)
            }
            guard let end = lineEnd(in: bytes, from: index) else { return false }
            index = end + 1
        }
        return false
    }

    private static let (lineFeed, carriageReturn, space, tab, colon): (UInt8, UInt8, UInt8, UInt8, UInt8) = (
        0x0A, 0x0D, 0x20, 0x09, 0x3A
    )

    private static func isEmptyLine(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
        bytes[index] == lineFeed
            || (bytes[index] == carriageReturn && index + 1 < bytes.count && bytes[index + 1] == lineFeed)
    }

    /// Where the field name that starts at `start` ends at its colon: printable ASCII other than
    /// the colon, at least one byte.
    private static func fieldNameEnd(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start
        while index < bytes.count, (0x21...0x7E).contains(bytes[index]), bytes[index] != colon { index += 1 }
        return index > start && index < bytes.count && bytes[index] == colon ? index : nil
    }

    private static func isTelltale(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Bool {
        guard end - start <= longestTelltale else { return false }
        return telltaleNames.contains(bytes[start..<end].map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 })
    }

    private static func lineEnd(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = bytes.baseAddress, let found = memchr(base + start, Int32(lineFeed), bytes.count - start)
        else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }
}

/// Takes GMime's items into a reading, within its limit.
private final class Collector {
    var limited: LimitedReading

    init(_ limited: LimitedReading) { self.limited = limited }

    /// Adds one item; false once the limit is reached.
    func take(_ item: sdlab_mime_item) -> Bool {
        let bytes = item.bytes.map { Array(UnsafeBufferPointer(start: $0, count: item.count)) } ?? []
        let part = partName(item)
        switch item.kind {
        case sdlab_mime_header:
            let name = "header " + text(item.name)
            return add(item.part == 0 ? "mime:" + name : "mime:\(part) \(name)", bytes)
        case sdlab_mime_filename:
            return add("mime:\(part) filename", bytes)
        case sdlab_mime_content:
            return add("mime:\(part)", bytes)
        case sdlab_mime_unconverted:
            let charset = text(item.charset)
            limited.problem("mime \(part): charset \(charset) has no conversion to UTF-8; read as bytes only")
            return add("mime:\(part)", bytes)
        case sdlab_mime_encrypted:
            limited.problem("mime \(part) is encrypted")
            return true
        default:
            limited.problem("mime \(part) is nested too deep to read")
            return true
        }
    }

    /// `part 2 (text/plain; utf-16)`, as far as the item names them.
    private func partName(_ item: sdlab_mime_item) -> String {
        let described = [item.type, item.charset].compactMap { $0 }.map { text($0) }
        return "part \(item.part)" + (described.isEmpty ? "" : " (\(described.joined(separator: "; ")))")
    }

    private func text(_ string: UnsafePointer<CChar>?) -> String {
        guard let string else { return "" }
        return PathText.escaped(Array(UnsafeRawBufferPointer(start: string, count: strlen(string))))
    }

    private func add(_ label: String, _ bytes: [UInt8]) -> Bool { limited.add(label, bytes) }
}

private let collectItem: sdlab_mime_sink = { context, item in
    guard let context, let item else { return false }
    return Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue().take(item.pointee)
}
