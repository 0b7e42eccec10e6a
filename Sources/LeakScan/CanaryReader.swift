import Crypto
import SharedDevice

#if canImport(Glibc)
    import Glibc
#endif

/// Reads the canaries in one file's bytes as an attacker would: as UTF-8 text, as UTF-16 text,
/// as JSON text with escaped slashes and as percent-encoded text; inside the base64 blocks and
/// the gzip, zlib, bzip2, xz, zstd and zip data they hold (zip entries stored, deflated, bzip2,
/// LZMA, zstd or xz); as the formats apps store in, each read with its own library (SQLite,
/// property lists and keyed archives, JSON, archives, MIME: `FormatReading`); and as AES-GCM
/// sealed boxes under every key the scan found (`keys`). Every value any of these gives is read
/// again the same ways, to any depth: what bounds the work is the bytes decoded, `budget` for a
/// file in all. Compressed data is tried at its magic numbers, and a try stops at the first
/// error, as most are false starts (a magic number by chance in ciphertext).
///
/// What it cannot read it says (`problems`): a decoding stopped at the budget, a zip entry it
/// has no method for or that is encrypted, or whose data is corrupt. Each is one line naming
/// where in the file, and the scan that meets one is incomplete.
struct CanaryReader {
    /// A canary read, and how (`LeakScanner.Finding.via`).
    struct Sighting {
        var canary: Canary
        var via: String
    }

    /// Shorter bytes cannot hold a canary, nor anything that decodes to one.
    static let shortest = Canary.prefix.utf8.count

    /// What is left of the budget for this file.
    private(set) var budget: Int
    let initialBudget: Int
    /// What could not be read, each once.
    private(set) var problems: [String] = []
    /// What the current read found; a canary read twice the same way is there twice.
    private var sightings: [Sighting] = []
    /// Decoded bytes still to search, with the decodings that led to them: a list, not
    /// recursion, so that no depth of nesting runs out of stack.
    private var pending: [(bytes: [UInt8], via: [String])] = []
    private lazy var inflater = Inflater()
    /// The keys every value is tried with as a sealed box.
    let keys: [SymmetricKey]
    /// The zstd dictionaries of the container, for frames made with one.
    let dictionaries: ZstdDictionaries
    /// Values of a key's size met while reading (`keyCandidates(in:)`), else nil.
    private var keySized: [[UInt8]]?

    init(
        budget: Int = LeakScanner.Budget.standard.decodedBytes, keys: [SymmetricKey] = [],
        dictionaries: ZstdDictionaries = ZstdDictionaries()
    ) {
        self.budget = budget
        initialBudget = budget
        self.keys = keys
        self.dictionaries = dictionaries
    }

    /// The canaries in `bytes`, which the decodings `path` read from the file. `formats`: the
    /// bytes already read as their format (a database with its log beside it), not read again.
    mutating func canaries(in bytes: [UInt8], via path: [String] = [], formats: FormatReading? = nil) -> [Sighting] {
        sightings = []
        pending = []
        if let formats { take(formats, via: path) }
        search(bytes, via: path, readingFormats: formats == nil)
        while let (bytes, path) = pending.popLast() { search(bytes, via: path) }
        return sightings
    }

    /// Every value of a key's size (16, 24 or 32 bytes: AES-128, -192, -256) in `bytes`, however
    /// deep: the bytes themselves, a base64 block, a property list's data, a database's blob, an
    /// archive's entry.
    mutating func keyCandidates(in bytes: [UInt8]) -> [[UInt8]] {
        keySized = []
        _ = canaries(in: bytes)
        defer { keySized = nil }
        return keySized ?? []
    }

    static let keySizes: Set<Int> = [16, 24, 32]

    private mutating func search(_ bytes: [UInt8], via path: [String], readingFormats: Bool = true) {
        if keySized != nil, Self.keySizes.contains(bytes.count) { keySized?.append(bytes) }
        guard bytes.count >= Self.shortest else { return }
        note(Canary.all(inUTF8: bytes), via: path)
        bytes.withUnsafeBufferPointer { bytes in
            let landmarks = Landmarks(in: bytes)
            for (start, form) in landmarks.forms {
                switch form {
                case .wideText:
                    for (canary, order) in WideText.canaries(at: start, in: bytes) {
                        note([canary], via: path + [order])
                    }
                case .escapedText: note(EscapedText.canaries(at: start, in: bytes), via: path + ["json"])
                }
            }
            let format = readingFormats ? readFormats(bytes, via: path) : nil
            searchBase64(bytes, via: path)
            // An archive its library read is not read again entry by entry.
            let compressed = landmarks.compressed.filter { format != .archive || $0.format != .zip }
            searchCompressed(bytes, at: compressed, via: path)
            searchPercentEncoded(bytes, via: path)
        }
        open(bytes, via: path)
    }

    enum Format {
        case database, propertyList, archive, mail
    }

    /// The readers of the formats apps store in, each deciding by the bytes' structure.
    private static let readers: [(Format, @Sendable (UnsafeBufferPointer<UInt8>, Int) -> FormatReading?)] = [
        (.database, { SQLiteDatabase.read($0, limit: $1) }), (.propertyList, PropertyList.read),
        (.archive, Archive.read), (.mail, MIMEMessage.read),
    ]

    /// The bytes read as the format they are, by its structure; which one, if any.
    private mutating func readFormats(_ bytes: UnsafeBufferPointer<UInt8>, via path: [String]) -> Format? {
        for (format, reader) in Self.readers {
            guard let reading = reader(bytes, max(budget, 0)) else { continue }
            take(reading, via: path)
            return format
        }
        return nil
    }

    /// A format's values to search next, and what it could not read.
    private mutating func take(_ reading: FormatReading, via path: [String]) {
        let inside = path.isEmpty ? "" : ", in \(path.joined(separator: " > "))"
        for problem in reading.problems { self.problem(problem + inside) }
        for value in reading.values {
            budget -= value.bytes.count
            pending.append((value.bytes, path + [value.label]))
        }
        if reading.stopped, let last = reading.values.last { overBudget(at: last.label, via: path + [last.label]) }
    }

    /// The bytes opened as an AES-GCM sealed box (nonce, ciphertext, tag) under each key that
    /// opens it.
    private mutating func open(_ bytes: [UInt8], via path: [String]) {
        // A sealed box is at least its nonce and tag.
        guard !keys.isEmpty, bytes.count >= 28, let box = try? AES.GCM.SealedBox(combined: bytes) else { return }
        for key in keys {
            guard let plaintext = try? AES.GCM.open(box, using: key) else { continue }
            budget -= plaintext.count
            pending.append((Array(plaintext), path + ["aes-gcm"]))
        }
    }

    /// Text with `%XX` escapes, as URLs and their caches keep it, read unescaped.
    private mutating func searchPercentEncoded(_ bytes: UnsafeBufferPointer<UInt8>, via path: [String]) {
        for text in PercentText.unescaped(bytes) {
            decoded(text, via: path + ["percent"], stopped: false, at: "percent-encoded text")
        }
    }

    private mutating func note(_ canaries: [Canary], via path: [String]) {
        guard !canaries.isEmpty else { return }
        let via = path.joined(separator: " > ")
        sightings += canaries.map { Sighting(canary: $0, via: via) }
    }

    /// Decoded bytes to search next; a decoding the budget stopped is a problem.
    private mutating func decoded(_ output: [UInt8], via path: [String], stopped: Bool, at what: String) {
        budget -= output.count
        if stopped { overBudget(at: what, via: path) }
        if output.count >= Self.shortest { pending.append((output, path)) }
    }

    private mutating func overBudget(at what: String, via path: [String]) {
        let mebibytes = initialBudget >> 20
        let limit = mebibytes > 0 ? "\(mebibytes) MiB" : "\(initialBudget) bytes"
        let problem =
            "decoded past the budget of \(limit) a file is read to (\(what)"
            + (path.count > 1 ? ", in \(path.dropLast().joined(separator: " > ")))" : ")")
        // One is enough: once spent, the budget stops every later decoding alike.
        if !problems.contains(where: { $0.hasPrefix("decoded past the budget") }) { problems.append(problem) }
    }

    private mutating func problem(_ text: String) {
        if !problems.contains(text) { problems.append(text) }
    }

    private func place(_ offset: Int, via path: [String]) -> String {
        path.isEmpty ? "at byte \(offset)" : "at byte \(offset) of \(path.joined(separator: " > "))"
    }

    /// Decodes each block of base64 text at its start and in each alignment a marker in it
    /// calls for.
    private mutating func searchBase64(_ bytes: UnsafeBufferPointer<UInt8>, via path: [String]) {
        for block in Base64.blocks(in: bytes) {
            for alignment in Base64.alignments(in: block.characters) {
                let text = block.characters[alignment...]
                let output = Base64.decode(text, limit: max(budget, 0))
                let stopped = output.count < text.count * 3 / 4
                decoded(
                    output, via: path + ["base64"], stopped: stopped,
                    at: "base64 " + place(block.start, via: path))
            }
        }
    }

    /// Tries each place compressed data may start (`starts`, in order); past data read whole,
    /// the search goes on after it.
    private mutating func searchCompressed(
        _ bytes: UnsafeBufferPointer<UInt8>, at starts: [(at: Int, format: Compressed.Format)], via path: [String]
    ) {
        var next = 0
        var listed: Set<[UInt8]>?
        for (start, format) in starts where start >= next {
            let input = UnsafeBufferPointer(rebasing: bytes[start...])
            let limit = max(budget, 0)
            let result: Decompressed
            let label: String
            switch format {
            case .gzip, .zlib:
                // 15 + 32: a 32 KiB window, gzip or zlib by its header.
                result = inflater.inflate(input, windowBits: 15 + 32, limit: limit)
                label = format == .gzip ? "gzip" : "zlib"
            case .bzip2: (result, label) = (Bzip2.decompress(input, limit: limit), "bzip2")
            case .xz: (result, label) = (LZMA.decompressXZ(input, limit: limit), "xz")
            case .zstd: (result, label) = (Zstd.decompress(input, limit: limit, dictionaries: dictionaries), "zstd")
            case .zip:
                next = readZipEntry(at: start, in: bytes, via: path, listed: &listed)
                continue
            }
            if let id = result.missingDictionary {
                problem("zstd frame \(place(start, via: path)) needs dictionary \(id), which is not in the container")
            }
            decoded(
                result.output, via: path + [label], stopped: result.stopped(at: limit),
                at: "\(label) " + place(start, via: path))
            next = result.ended ? start + max(result.consumed, 1) : start + 1
        }
    }

    /// Reads the zip entry whose local header is at `start`; returns where to search next.
    /// `listed`: the names the buffer's central directories list, found once when first needed.
    private mutating func readZipEntry(
        at start: Int, in bytes: UnsafeBufferPointer<UInt8>, via path: [String], listed: inout Set<[UInt8]>?
    ) -> Int {
        let next = start + ZipEntry.signature.count
        guard let entry = ZipEntry(at: start, in: bytes) else { return next }
        // Made only for an entry that is read or told: most headers are magic numbers by chance.
        var what: String { "zip entry \(entry.shownName) " + place(start, via: path) }
        guard !entry.encrypted, ZipEntry.read.contains(entry.method) else {
            if entry.isListed(in: bytes, names: &listed) {
                problem(
                    entry.encrypted
                        ? "\(what) is encrypted"
                        : "\(what) is compressed with method \(entry.method), which is not read")
            }
            return next
        }
        let label = path + ["zip:" + entry.shownName]
        let limit = max(budget, 0)
        if entry.method == ZipEntry.stored {
            let end = entry.dataEnd(in: bytes)
            let data = Array(bytes[entry.dataStart..<min(end, entry.dataStart + limit)])
            decoded(data, via: label, stopped: entry.dataStart + data.count < end, at: what)
            return entry.dataStart + data.count == end ? max(end, next) : next
        }
        let input = UnsafeBufferPointer(rebasing: bytes[entry.dataStart..<entry.compressedEnd(in: bytes)])
        let result: Decompressed
        switch entry.method {
        // Negative: raw deflate, no header.
        case ZipEntry.deflated: result = inflater.inflate(input, windowBits: -15, limit: limit)
        case ZipEntry.bzip2: result = Bzip2.decompress(input, limit: limit)
        case ZipEntry.lzma: result = LZMA.decompressZipEntry(input, limit: limit)
        case ZipEntry.zstd: result = Zstd.decompress(input, limit: limit, dictionaries: dictionaries)
        default: result = LZMA.decompressXZ(input, limit: limit)
        }
        decoded(result.output, via: label, stopped: result.stopped(at: limit), at: what)
        if result.failed, entry.isListed(in: bytes, names: &listed) {
            problem("\(what) is corrupt after \(result.output.count) bytes of it")
        }
        return result.ended ? max(entry.dataStart + result.consumed, next) : next
    }
}
