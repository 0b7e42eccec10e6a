import CFormatLibraries

#if canImport(Glibc)
    import Glibc
#endif

/// An archive read as libarchive reads it: tar in its forms (v7, ustar, GNU, pax), zip with every
/// method libarchive decodes, 7z, cpio, ar, ISO 9660, RAR, CAB, LHA, XAR and WARC. Every entry's
/// name and link target and every entry's data are values (`tar-name`, `tar-link:NAME`,
/// `tar:NAME`); an entry libarchive cannot read (encrypted, a method it lacks, corrupt data) is
/// a problem naming it with libarchive's words.
enum Archive {
    /// What `bytes` hold as an archive, with at most `limit` bytes of values; nil unless they
    /// start as one (`family`) and libarchive takes them as one.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, limit: Int) -> FormatReading? {
        guard let family = family(of: bytes), let start = bytes.baseAddress else { return nil }
        var archive: OpaquePointer?
        var error: UnsafePointer<CChar>?
        let status = sdlab_archive_open(start, bytes.count, &archive, &error)
        let reason = error.map { String(cString: $0) } ?? "no reason given"
        switch status {
        case sdlab_archive_opened:
            guard let archive else { return nil }
            defer { sdlab_archive_close(archive) }
            return entries(of: archive, limit: limit)
        case sdlab_archive_not_archive:
            return nil
        case sdlab_archive_unavailable:
            return FormatReading(problems: ["a \(family) archive was not read: \(reason)"])
        default:
            return FormatReading(problems: ["a \(family) archive cannot be read: \(reason)"])
        }
    }

    /// Every entry's names and data, until the end, the limit or an error libarchive cannot
    /// read past.
    private static func entries(of archive: OpaquePointer, limit: Int) -> FormatReading {
        var limited = LimitedReading(limit: limit)
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var previous: String?
        while true {
            var entry = sdlab_archive_entry()
            let next = sdlab_archive_next(archive, &entry)
            let format = String(cString: sdlab_archive_format(archive))
            if next == 0 { break }
            guard next > 0 else {
                let place = previous.map { "past entry \($0)" } ?? "from its first entry"
                limited.problem("a \(format) archive cannot be read \(place): \(errorText(archive))")
                break
            }
            let name = cBytes(entry.name)
            let shown = PathText.escaped(name)
            previous = shown
            guard limited.add("\(format)-name", name) else { break }
            if entry.link != nil, !limited.add("\(format)-link:\(shown)", cBytes(entry.link)) { break }
            guard let data = data(of: archive, into: &chunk, limit: limit) else {
                let why = entry.encrypted ? "is encrypted" : "cannot be read"
                limited.problem("\(format) entry \(shown) \(why): \(errorText(archive))")
                continue
            }
            guard data.isEmpty || limited.add("\(format):\(shown)", data) else { break }
        }
        return limited.reading
    }

    /// The current entry's data, at most `limit` bytes (one more when there is more, so that the
    /// reading knows it stopped); nil when libarchive cannot read it.
    private static func data(of archive: OpaquePointer, into chunk: inout [UInt8], limit: Int) -> [UInt8]? {
        var data: [UInt8] = []
        while data.count <= limit {
            let room = min(chunk.count, limit + 1 - data.count)
            let read = chunk.withUnsafeMutableBytes { sdlab_archive_data(archive, $0.baseAddress, room) }
            if read < 0 { return nil }
            if read == 0 { break }
            data += chunk[..<read]
        }
        return data
    }

    private static func errorText(_ archive: OpaquePointer) -> String { String(cString: sdlab_archive_error(archive)) }

    private static func cBytes(_ string: UnsafePointer<CChar>?) -> [UInt8] {
        guard let string else { return [] }
        return Array(UnsafeRawBufferPointer(start: string, count: strlen(string)))
    }

    /// The archive family `bytes` start as, by the magic numbers libarchive bids on: decided
    /// before libarchive is loaded, so that other bytes cost nothing.
    static func family(of bytes: UnsafeBufferPointer<UInt8>) -> String? {
        func has(_ magic: String, at offset: Int = 0) -> Bool {
            let magic = Array(magic.utf8)
            return offset + magic.count <= bytes.count && bytes[offset..<offset + magic.count].elementsEqual(magic)
        }
        func hasBytes(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            offset + magic.count <= bytes.count && bytes[offset..<offset + magic.count].elementsEqual(magic)
        }
        if hasBytes(ZipEntry.signature) || hasBytes([0x50, 0x4B, 0x07, 0x08] + ZipEntry.signature) { return "zip" }
        if has("ustar", at: 257) || isTarHeader(bytes) { return "tar" }
        if hasBytes([0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C]) { return "7z" }
        if has("070707") || has("070701") || has("070702") { return "cpio" }
        if bytes.count >= 26, hasBytes([0xC7, 0x71]) || hasBytes([0x71, 0xC7]) { return "cpio" }
        if has("!<arch>\n") { return "ar" }
        if has("Rar!\u{1A}\u{07}") { return "rar" }
        if hasBytes(Array("MSCF".utf8) + [0, 0, 0, 0]) { return "cab" }
        if has("xar!") { return "xar" }
        if has("WARC/1.") { return "warc" }
        if bytes.count >= 7, has("-l", at: 2), bytes[6] == 0x2D { return "lha" }
        if has("CD001", at: 32769) { return "iso9660" }
        return nil
    }

    /// Whether `bytes` start with a tar header without the ustar magic (v7 tar): a name, and a
    /// checksum that holds over the 512 bytes.
    private static func isTarHeader(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= 512, bytes[0] != 0 else { return false }
        let field = bytes[148..<156]
        guard field.allSatisfy({ (0x30...0x37).contains($0) || $0 == 0x20 || $0 == 0 }) else { return false }
        let digits = field.prefix { (0x30...0x37).contains($0) || $0 == 0x20 }.filter { $0 != 0x20 }
        guard !digits.isEmpty else { return false }
        let recorded = digits.reduce(0) { $0 * 8 + Int($1 - 0x30) }
        let sum = bytes[0..<512].enumerated().reduce(0) { sum, byte in
            sum + ((148..<156).contains(byte.offset) ? 0x20 : Int(byte.element))
        }
        return sum == recorded
    }
}
