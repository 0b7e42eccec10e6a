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
            let reading = entries(of: archive, limit: limit)
            // Two or three bytes by chance (a blob's random bytes) start no archive: one whose
            // first entry cannot be read is none.
            return reading.values.isEmpty && hasWeakMagic(bytes) ? nil : reading
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
            let (data, readable) = data(of: archive, limit: limit)
            // What was read before an error is what an attacker has too.
            guard data.isEmpty || limited.add("\(format):\(shown)", data) else { break }
            if !readable {
                let why = entry.encrypted ? "is encrypted" : "cannot be read"
                limited.problem("\(format) entry \(shown) \(why): \(errorText(archive))")
            }
        }
        return limited.reading
    }

    /// The current entry's data, at most `limit` bytes (one more when there is more, so that the
    /// reading knows it stopped), and whether libarchive read it to its end without an error.
    private static func data(of archive: OpaquePointer, limit: Int) -> (data: [UInt8], readable: Bool) {
        var data: [UInt8] = []
        while data.count <= limit {
            var block: UnsafePointer<UInt8>?
            var count = 0
            let status = sdlab_archive_block(archive, &block, &count)
            if let block { data += UnsafeBufferPointer(start: block, count: min(count, limit + 1 - data.count)) }
            if status < 0 { return (data, false) }
            if status == 0 { break }
        }
        return (data, true)
    }

    private static func errorText(_ archive: OpaquePointer) -> String { String(cString: sdlab_archive_error(archive)) }

    private static func cBytes(_ string: UnsafePointer<CChar>?) -> [UInt8] {
        guard let string else { return [] }
        return Array(UnsafeRawBufferPointer(start: string, count: strlen(string)))
    }

    /// The magic numbers libarchive bids on, with where they are and the family each starts.
    private static let magics: [(family: String, offset: Int, bytes: [UInt8])] = [
        ("zip", 0, ZipEntry.signature),
        // A split archive's marker before its first entry.
        ("zip", 0, [0x50, 0x4B, 0x07, 0x08] + ZipEntry.signature),
        ("tar", 257, Array("ustar".utf8)),
        ("7z", 0, [0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C]),
        ("cpio", 0, Array("070707".utf8)), ("cpio", 0, Array("070701".utf8)), ("cpio", 0, Array("070702".utf8)),
        // Binary cpio, little- and big-endian.
        ("cpio", 0, [0xC7, 0x71]), ("cpio", 0, [0x71, 0xC7]),
        ("ar", 0, Array("!<arch>\n".utf8)),
        ("rar", 0, Array("Rar!".utf8) + [0x1A, 0x07]),
        ("cab", 0, Array("MSCF".utf8) + [0, 0, 0, 0]),
        ("xar", 0, Array("xar!".utf8)),
        ("warc", 0, Array("WARC/1.".utf8)),
        ("iso9660", 32769, Array("CD001".utf8)),
    ]

    /// Whether `bytes` are taken for an archive on a magic number short enough to occur by
    /// chance: binary cpio's two bytes, LHA's method, a v7 tar header's checksum.
    private static func hasWeakMagic(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard
            let strong = magics.first(where: { magic in
                magic.offset + magic.bytes.count <= bytes.count
                    && bytes[magic.offset..<magic.offset + magic.bytes.count].elementsEqual(magic.bytes)
            })
        else { return true }
        return strong.bytes.count <= 2
    }

    /// The archive family `bytes` start as, by the magic numbers libarchive bids on: decided
    /// before libarchive is loaded, so that other bytes cost nothing.
    static func family(of bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let found = magics.first { magic in
            magic.offset + magic.bytes.count <= bytes.count
                && bytes[magic.offset..<magic.offset + magic.bytes.count].elementsEqual(magic.bytes)
        }
        if let found { return found.family }
        if isTarHeader(bytes) { return "tar" }
        // LHA's method, `-lh5-`, after the header's size and checksum.
        if bytes.count >= 7, bytes[2] == 0x2D, bytes[3] == 0x6C, bytes[6] == 0x2D { return "lha" }
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
