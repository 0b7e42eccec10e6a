#if canImport(Glibc)
    import Glibc
#endif

enum Compressed {
    enum Format { case gzip, zlib, zip, bzip2, xz, zstd }

    /// The byte pairs compressed data starts with: gzip's 1f 8b, zip's `PK`, bzip2's `BZ`,
    /// xz's fd 37, zstd's 28 b5, and each valid zlib header (deflate, a window of at most
    /// 32 KiB, a header check that holds, no preset dictionary).
    static let startingPairs: [(UInt8, UInt8)] = {
        let methods = (0..<8).map { UInt8($0 << 4 | 8) }
        let zlib = methods.flatMap { method in (0...255).map { (method, UInt8($0)) } }
        return [(0x1F, 0x8B), (0x50, 0x4B), (0x42, 0x5A), (0xFD, 0x37), (0x28, 0xB5)]
            + zlib.filter { isZlibHeader($0.0, $0.1) }
    }()

    /// What compressed data may start at `index`, by its magic number: gzip's 1f 8b 08
    /// (deflate), a zlib header, a zip local file header, bzip2's, xz's or zstd's.
    static func format(at index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Format? {
        guard index + 2 < bytes.count else { return nil }
        let (first, second, third) = (bytes[index], bytes[index + 1], bytes[index + 2])
        if first == 0x1F, second == 0x8B, third == 0x08 { return .gzip }
        if isZlibHeader(first, second) { return .zlib }
        let rest = UnsafeBufferPointer(rebasing: bytes[index...])
        if rest.starts(with: ZipEntry.signature) { return .zip }
        if Bzip2.starts(at: index, in: bytes) { return .bzip2 }
        if rest.starts(with: LZMA.xzMagic) { return .xz }
        if rest.starts(with: Zstd.magic) { return .zstd }
        return nil
    }

    private static func isZlibHeader(_ method: UInt8, _ flags: UInt8) -> Bool {
        method & 0x8F == 0x08 && (UInt16(method) << 8 | UInt16(flags)) % 31 == 0 && flags & 0x20 == 0
    }
}

/// A zip archive's local file header, `PK\3\4`: the entry's name, method and sizes, and where
/// its data starts.
struct ZipEntry {
    static let signature: [UInt8] = [0x50, 0x4B, 0x03, 0x04]
    static let centralSignature: [UInt8] = [0x50, 0x4B, 0x01, 0x02]
    /// The methods read, as the format numbers them.
    static let stored = 0
    static let deflated = 8
    static let bzip2 = 12
    static let lzma = 14
    static let zstd = 93
    static let xz = 95
    static let read: Set<Int> = [stored, deflated, bzip2, lzma, zstd, xz]

    var name: [UInt8]
    var method: Int
    var flags: Int
    var dataStart: Int
    /// None when written as a stream (flag bit 3: the sizes follow the data, in a data
    /// descriptor) or in zip64 (the sizes in an extra field).
    var compressedSize: Int?

    var encrypted: Bool { flags & 1 != 0 }
    /// The name as reports show it.
    var shownName: String { PathText.escaped(name) }

    /// The entry at `start`, if its header fits in `bytes`.
    init?(at start: Int, in bytes: UnsafeBufferPointer<UInt8>) {
        guard start + 30 <= bytes.count else { return nil }
        func number(at offset: Int, size: Int) -> Int {
            (0..<size).reduce(0) { value, byte in value | Int(bytes[start + offset + byte]) << (8 * byte) }
        }
        (flags, method) = (number(at: 6, size: 2), number(at: 8, size: 2))
        let (nameLength, extraLength) = (number(at: 26, size: 2), number(at: 28, size: 2))
        dataStart = start + 30 + nameLength + extraLength
        guard dataStart <= bytes.count else { return nil }
        name = Array(bytes[(start + 30)..<(start + 30 + nameLength)])
        let size = number(at: 18, size: 4)
        compressedSize = size == 0xFFFF_FFFF || (size == 0 && flags & 8 != 0) ? nil : size
    }

    /// The names the central directory headers in `bytes` list: an entry one of them names is
    /// an entry of a zip archive, not a magic number by chance.
    static func listedNames(in bytes: UnsafeBufferPointer<UInt8>) -> Set<[UInt8]> {
        Set(
            positions(of: centralSignature, in: bytes).compactMap { header in
                guard header + 46 <= bytes.count else { return nil }
                let length = Int(bytes[header + 28]) | Int(bytes[header + 29]) << 8
                guard header + 46 + length <= bytes.count else { return nil }
                return Array(bytes[(header + 46)..<(header + 46 + length)])
            })
    }

    /// Whether a central directory header in `bytes` lists this entry: a header by chance in
    /// other bytes is not an archive's entry, and what cannot be read of it says nothing.
    /// `names`: the names listed, found once when first needed.
    func isListed(in bytes: UnsafeBufferPointer<UInt8>, names: inout Set<[UInt8]>?) -> Bool {
        if names == nil { names = Self.listedNames(in: bytes) }
        return names?.contains(name) == true
    }

    /// Where the compressed data ends, as far as the header tells: by its size, else at the end.
    func compressedEnd(in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        compressedSize.map { min(dataStart + $0, bytes.count) } ?? bytes.count
    }

    /// Where stored data ends: by its size, else at the data descriptor that gives the length
    /// read so far, else at the next header, else at the end.
    func dataEnd(in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        if let compressedSize { return min(dataStart + compressedSize, bytes.count) }
        var index = dataStart
        while let found = firstPosition(of: [0x50, 0x4B], in: bytes, from: index), found + 4 <= bytes.count {
            let kind = (bytes[found + 2], bytes[found + 3])
            if kind == (0x07, 0x08), found + 12 <= bytes.count,
                (0..<4).reduce(0, { $0 | Int(bytes[found + 8 + $1]) << (8 * $1) }) == found - dataStart
            {
                return found
            }
            if kind == (0x03, 0x04) || kind == (0x01, 0x02) { return found }
            index = found + 1
        }
        return bytes.count
    }
}
