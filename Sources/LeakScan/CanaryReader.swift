import Crypto
import SharedDevice

#if canImport(Glibc)
    import Glibc
#endif

/// Reads the canaries in one file's bytes as an attacker would: as UTF-8 text, as UTF-16 text,
/// as JSON text with escaped slashes and as text written with escapes (`TextEscapes`: percent,
/// character references, backslashes, hex); inside the base64 blocks and
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
    /// A canary read, and how: each decoding, outermost first (`LeakScanner.Route`).
    struct Sighting {
        var canary: Canary
        var route: [String]
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
    /// `whole`: a value as it was kept (a file, a table's cell, an entry, a stream), not bytes a
    /// guess cut out of others (base64 inside text, hex), which alone may be keys.
    private var pending: [(bytes: [UInt8], via: [String], whole: Bool)] = []
    private lazy var inflater = Inflater()
    /// The keys every value is tried with as a sealed box, and the zstd dictionaries for frames
    /// made with one: known once the whole container has been read (`Later`).
    let keys: [SymmetricKey]
    let dictionaries: ZstdDictionaries
    /// Whether the keys and dictionaries are the container's, all of them: a reading before
    /// that keeps what needs them for later.
    let knowsTheContainer: Bool
    /// What this reading leaves for when the whole container has been read: on the first
    /// reading of a file the keys and dictionaries are not all known yet.
    private(set) var later = Later()

    /// What a first reading cannot finish alone: values that may be sealed boxes, frames that
    /// need a dictionary; and what it found for the others, values of a key's size.
    struct Later {
        /// Values of a key's size (16, 24 or 32 bytes: AES-128, -192, -256) that are not text:
        /// a key file, the keychain's base64, a property list's data, a database's blob.
        var keys: Set<[UInt8]> = []
        /// Values that may be sealed boxes: long enough, and not text (ciphertext is random).
        var sealed: [(bytes: [UInt8], via: [String])] = []
        /// zstd frames that name a dictionary, from their start, and where they are.
        var frames: [(bytes: [UInt8], via: [String], place: String)] = []

        var isEmpty: Bool { sealed.isEmpty && frames.isEmpty }

        mutating func add(_ other: Later) {
            keys.formUnion(other.keys)
            sealed += other.sealed
            frames += other.frames
        }
    }

    /// A first reading: what needs the container's keys and dictionaries is kept (`later`).
    init(budget: Int = LeakScanner.Budget.standard.decodedBytes) {
        self.budget = budget
        initialBudget = budget
        keys = []
        dictionaries = ZstdDictionaries()
        knowsTheContainer = false
    }

    /// A reading with all of the container's keys and dictionaries.
    init(budget: Int = LeakScanner.Budget.standard.decodedBytes, keys: [SymmetricKey], dictionaries: ZstdDictionaries) {
        self.budget = budget
        initialBudget = budget
        self.keys = keys
        self.dictionaries = dictionaries
        knowsTheContainer = true
    }

    /// The canaries in `bytes`, which the decodings `path` read from the file. `formats`: the
    /// bytes already read as their format (a database with its log beside it), not read again.
    mutating func canaries(in bytes: [UInt8], via path: [String] = [], formats: FormatReading? = nil) -> [Sighting] {
        sightings = []
        pending = []
        if let formats { take(formats, via: path) }
        search(bytes, via: path, readingFormats: formats == nil)
        drain()
        return sightings
    }

    /// The canaries in what a first reading left (`later`), now that the keys and dictionaries
    /// are known: each value opened under every key, each frame read with its dictionary (one
    /// that is not in the container is named).
    mutating func canaries(in left: Later) -> [Sighting] {
        sightings = []
        pending = []
        for (bytes, path) in left.sealed { open(bytes, via: path) }
        for (bytes, path, place) in left.frames {
            bytes.withUnsafeBufferPointer { frame in
                let result = Zstd.decompress(frame, limit: max(budget, 0), dictionaries: dictionaries)
                if let id = result.missingDictionary {
                    problem("zstd frame \(place) needs dictionary \(id), which is not in the container")
                }
                decoded(result.output, via: path, stopped: result.stopped(at: max(budget, 0)), at: "zstd " + place)
            }
        }
        drain()
        return sightings
    }

    private mutating func drain() {
        while let (bytes, path, whole) = pending.popLast() { search(bytes, via: path, whole: whole) }
    }

    static let keySizes: Set<Int> = [16, 24, 32]

    /// Whether `bytes` hold a byte no text holds (outside printable ASCII and white space): a
    /// key or a sealed box is random bytes, which do (all of 16 random bytes text: about one in
    /// five million).
    static func isBinary(_ bytes: [UInt8]) -> Bool {
        bytes.contains { $0 >= 0x7F || ($0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D) }
    }

    /// Searches `bytes`; `readingFormats`: false when they were already read as their format.
    private mutating func search(_ bytes: [UInt8], via path: [String], readingFormats: Bool = true, whole: Bool = true)
    {
        if whole, Self.keySizes.contains(bytes.count), Self.isBinary(bytes) { later.keys.insert(bytes) }
        guard bytes.count >= Self.shortest else { return }
        note(Canary.all(inUTF8: bytes), via: path)
        var format: Format?
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
            note(Utf32Text.canaries(in: bytes), via: path + ["utf32"])
            format = readingFormats ? readFormats(bytes, via: path) : nil
            searchBase64(bytes, via: path)
            // An archive its library read is not read again entry by entry.
            let compressed = landmarks.compressed.filter { format != .archive || $0.format != .zip }
            searchCompressed(bytes, at: compressed, via: path)
            searchEscapedText(bytes, via: path)
        }
        // A database, a property list, an archive or a mail is no sealed box.
        if readingFormats, format == nil { open(bytes, via: path) }
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
            pending.append((value.bytes, path + [value.label], true))
        }
        if reading.stopped, let last = reading.values.last { overBudget(at: last.label, via: path + [last.label]) }
    }

    /// The bytes opened as an AES-GCM sealed box (nonce, ciphertext, tag) under each key that
    /// opens it; on a first reading, kept for when the keys are known.
    private mutating func open(_ bytes: [UInt8], via path: [String]) {
        // A sealed box is at least its nonce and tag.
        guard bytes.count >= 28, Self.isBinary(bytes) else { return }
        guard knowsTheContainer else { return later.sealed.append((bytes, path)) }
        for (cipher, plaintext) in Self.opened(bytes, with: keys) {
            budget -= plaintext.count
            pending.append((plaintext, path + [cipher], true))
        }
    }

    /// The two ciphers CryptoKit seals with, by the name a finding's way gives each.
    static let ciphers = ["aes-gcm", "chachapoly"]

    /// The plaintexts of `bytes` opened as a sealed box of CryptoKit's, nonce, ciphertext and
    /// tag (`combined`): AES-GCM under every key, ChaCha20-Poly1305 under every 256-bit one.
    static func opened(_ bytes: [UInt8], with keys: [SymmetricKey]) -> [(cipher: String, plaintext: [UInt8])] {
        let aes = try? AES.GCM.SealedBox(combined: bytes)
        let chacha = try? ChaChaPoly.SealedBox(combined: bytes)
        var opened: [(cipher: String, plaintext: [UInt8])] = []
        for key in keys {
            if let aes, let plaintext = try? AES.GCM.open(aes, using: key) {
                opened.append((ciphers[0], Array(plaintext)))
            }
            if key.bitCount == 256, let chacha, let plaintext = try? ChaChaPoly.open(chacha, using: key) {
                opened.append((ciphers[1], Array(plaintext)))
            }
        }
        return opened
    }

    /// A zstd frame that names a dictionary this reading does not have: kept for when the
    /// container's dictionaries are known, or named when they are.
    private mutating func wantsDictionary(_ frame: UnsafeBufferPointer<UInt8>, via path: [String], at place: String) {
        guard let id = Zstd.dictionaryID(of: frame), dictionaries[id] == nil else { return }
        if !knowsTheContainer {
            later.frames.append((Array(frame), path, place))
        } else {
            problem("zstd frame \(place) needs dictionary \(id), which is not in the container")
        }
    }

    /// Text written with escapes (percent, character references, backslashes, hex), read unescaped.
    private mutating func searchEscapedText(_ bytes: UnsafeBufferPointer<UInt8>, via path: [String]) {
        for (label, text) in TextEscapes.decodings(in: bytes) {
            decoded(text, via: path + [label], stopped: false, at: "\(label) text", whole: false)
        }
    }

    private mutating func note(_ canaries: [Canary], via path: [String]) {
        guard !canaries.isEmpty else { return }
        sightings += canaries.map { Sighting(canary: $0, route: path) }
    }

    /// Decoded bytes to search next (`whole`: as `pending`); a decoding the budget stopped is a problem.
    private mutating func decoded(
        _ output: [UInt8], via path: [String], stopped: Bool, at what: String, whole: Bool = true
    ) {
        budget -= output.count
        if stopped { overBudget(at: what, via: path) }
        if output.count >= Self.shortest || whole { pending.append((output, path, whole)) }
    }

    private mutating func overBudget(at what: String, via path: [String]) {
        let limit = sizeText(initialBudget)
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
        // Base64 that is the whole value (a key in the keychain's file, a plist's string) is one.
        let isBase64 = Base64.isWhole(bytes)
        for block in Base64.blocks(in: bytes) {
            for alignment in Base64.alignments(in: block.characters) {
                let text = block.characters[alignment...]
                let output = Base64.decode(text, limit: max(budget, 0))
                let stopped = output.count < text.count * 3 / 4
                decoded(
                    output, via: path + ["base64"], stopped: stopped,
                    at: "base64 " + place(block.start, via: path), whole: isBase64 && alignment == 0)
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
            if result.missingDictionary != nil {
                wantsDictionary(
                    UnsafeBufferPointer(rebasing: input[result.consumed...]), via: path + [label],
                    at: place(start, via: path))
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
        if result.missingDictionary != nil {
            wantsDictionary(UnsafeBufferPointer(rebasing: input[result.consumed...]), via: label, at: what)
        }
        decoded(result.output, via: label, stopped: result.stopped(at: limit), at: what)
        if result.failed, entry.isListed(in: bytes, names: &listed) {
            problem("\(what) is corrupt after \(result.output.count) bytes of it")
        }
        return result.ended ? max(entry.dataStart + result.consumed, next) : next
    }
}
