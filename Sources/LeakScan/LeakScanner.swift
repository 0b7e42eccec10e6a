import CZlib
import Crypto
import DeviceProcesses
import FoundationEssentials
import SharedDevice

#if canImport(Glibc)
    import Glibc
#endif

/// The device attacker of Docs/behaviour.md §8: reads every file of the containers it is given, and tries
/// every key found there (any file of exactly 32 bytes, wherever it lies) on every file as
/// AES-GCM. A file is read as text and inside the encodings and compressions it holds (see
/// `CanaryReader`): data a cleanup encoded or compressed instead of deleting is still there.
/// The runner scans every container; an app scans its own after each cleanup, to confirm what
/// the cleanup left.
public struct LeakScanner: Sendable {
    /// A canary the attacker can read, and where.
    public struct Finding: Hashable, Sendable {
        public var canary: Canary
        /// The container (app) whose folder holds the file.
        public var app: String
        public var file: String
        /// The file inside the container, as a person finds it: `documents/cou1/plain-1.txt`.
        public var place: String
        public var encrypted: Bool
        /// How the canary was read: empty when the file holds it as UTF-8 text, else each
        /// decoding from the file's bytes to it, outermost first, joined by ` > `: `utf16le`,
        /// `utf16be`, `json` (slashes escaped), `base64`, `gzip`, `zlib`, `zip:ENTRY`, `aes-gcm`
        /// (`zip:notes.txt > base64`); read several ways in one file, the ways joined by `, `.
        public var via: String

        public init(canary: Canary, app: String, file: String, place: String, encrypted: Bool, via: String = "") {
            self.canary = canary
            self.app = app
            self.file = file
            self.place = place
            self.encrypted = encrypted
            self.via = via
        }
    }

    /// The containers to read: app name and folder.
    public let containers: [(app: String, root: String)]

    /// Every container in `containersFolder` (a folder per app, named after it).
    public init(containersFolder: String) {
        let apps = (try? FileManager.default.contentsOfDirectory(atPath: containersFolder)) ?? []
        containers = apps.sorted().map { ($0, containersFolder + "/" + $0) }
    }

    /// One app's container.
    public init(container root: String, app: String) { containers = [(app, root)] }

    /// Everything readable.
    public func scan() -> [Finding] {
        let files = containers.flatMap { app, root in
            Self.files(under: root).map { (app: app, path: root + "/" + $0, place: $0) }
        }
        let contents = files.map { Self.contents(of: $0.path) }
        let keys = contents.compactMap { $0.count == 32 ? SymmetricKey(data: $0) : nil }
        // One finding per canary and file: a canary read there several ways (its text, and in
        // base64 beside it) is one record left, its ways listed together.
        var findings: [String: Finding] = [:]
        for (file, bytes) in zip(files, contents) {
            var reader = CanaryReader()
            let readable = reader.canaries(in: bytes).map { (sighting: $0, encrypted: false) }
            let decrypted = Self.opened(bytes, with: keys).flatMap { plaintext in
                reader.canaries(in: plaintext, via: ["aes-gcm"]).map { (sighting: $0, encrypted: true) }
            }
            for (sighting, encrypted) in readable + decrypted {
                let key = file.path + "\u{0}" + sighting.canary.description
                guard var known = findings[key] else {
                    findings[key] = Finding(
                        canary: sighting.canary, app: file.app, file: file.path, place: file.place,
                        encrypted: encrypted, via: sighting.via)
                    continue
                }
                known.via = Self.merged(known.via, sighting.via)
                known.encrypted = known.encrypted && encrypted
                findings[key] = known
            }
        }
        // Each canary's text made once, not at each comparison.
        let keyed = findings.values.map { (key: ($0.app, $0.file, $0.canary.description), finding: $0) }
        return keyed.sorted { $0.key < $1.key }.map(\.finding)
    }

    /// Two ways a canary was read, as one: plain text (`""`) says it all; else each way once.
    static func merged(_ first: String, _ second: String) -> String {
        guard !first.isEmpty, !second.isEmpty else { return "" }
        let ways = Set(first.components(separatedBy: ", ") + second.components(separatedBy: ", "))
        return ways.sorted().joined(separator: ", ")
    }

    /// Another user's readable data, split as Docs/behaviour.md §8 says: user data is always a leak;
    /// preferences and common data are retained when the app's cleanup declares it keeps them,
    /// else leaks too.
    public static func judge(
        _ findings: [Finding], currentUser: String?,
        cleanup: CleanupPolicy
    ) -> (leaks: [Finding], retained: [Finding]) {
        let others = findings.filter { $0.canary.user != currentUser }
        return (others.filter { cleanup.leaks($0.canary.kind) }, others.filter { !cleanup.leaks($0.canary.kind) })
    }

    /// The plaintexts of `bytes` read as one AES-GCM sealed box, under each key that opens it.
    static func opened(_ bytes: [UInt8], with keys: [SymmetricKey]) -> [[UInt8]] {
        // A sealed box is at least its nonce and tag.
        guard !keys.isEmpty, bytes.count >= 28, let box = try? AES.GCM.SealedBox(combined: bytes) else { return [] }
        return keys.compactMap { key in (try? AES.GCM.open(box, using: key)).map { Array($0) } }
    }

    /// Every regular file under `root`, as paths relative to it (a folder walk with readdir:
    /// an app scans its own container after each cleanup, so this is on a hot path).
    static func files(under root: String, relative: String = "") -> [String] {
        FolderListing.entries(of: relative.isEmpty ? root : root + "/" + relative).flatMap { entry in
            let path = relative.isEmpty ? entry.name : relative + "/" + entry.name
            // Links and the rest are not the app's files.
            return entry.isFolder ? files(under: root, relative: path) : entry.isFile ? [path] : []
        }
    }

    /// A file's bytes; none if it cannot be read.
    static func contents(of path: String) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return bytes }
            bytes += buffer[..<count]
        }
    }
}

// MARK: - Reading a file's bytes

/// Reads the canaries in one file's bytes as an attacker would: as UTF-8 text, as UTF-16 text
/// and as JSON text with escaped slashes, and inside the base64, gzip, zlib and zip data they
/// hold, nested up to `maxDepth` decodings deep and `maxDecodedBytes` decoded in all (a zip
/// bomb costs no more than that). Encodings are found by byte searches for the forms the
/// canary prefix takes in them; only compressed data is tried at its magic numbers, and a try
/// stops at the first error, as most are false starts (a magic number by chance in ciphertext).
struct CanaryReader {
    /// A canary read, and how (`LeakScanner.Finding.via`).
    struct Sighting {
        var canary: Canary
        var via: String
    }

    /// Decodings within decodings, at most: enough for base64 in gzip in a zip in a sealed box.
    static let maxDepth = 4
    /// Bytes decoded from one file, at most.
    static let maxDecodedBytes = 64 << 20
    /// Shorter bytes cannot hold a canary, nor anything that decodes to one.
    static let shortest = Canary.prefix.utf8.count

    /// What is left of `maxDecodedBytes` for this file.
    private(set) var budget = maxDecodedBytes
    /// What the current read found; a canary read twice the same way is there twice.
    private var sightings: [Sighting] = []
    private lazy var inflater = Inflater()

    /// The canaries in `bytes`, which the decodings `path` read from the file.
    mutating func canaries(in bytes: [UInt8], via path: [String] = []) -> [Sighting] {
        sightings = []
        search(bytes, via: path)
        return sightings
    }

    private mutating func search(_ bytes: [UInt8], via path: [String]) {
        guard bytes.count >= Self.shortest else { return }
        note(Canary.all(inUTF8: bytes), via: path)
        bytes.withUnsafeBufferPointer { bytes in
            let landmarks = Landmarks(in: bytes)
            var base64: [Int] = []
            for (start, form) in landmarks.forms {
                switch form {
                case .wideText:
                    for (canary, order) in WideText.canaries(at: start, in: bytes) {
                        note([canary], via: path + [order])
                    }
                case .escapedText: note(EscapedText.canaries(at: start, in: bytes), via: path + ["json"])
                case .base64: base64.append(start)
                }
            }
            guard path.count < Self.maxDepth else { return }
            searchBase64(bytes, at: base64, via: path)
            searchCompressed(bytes, at: landmarks.compressed, via: path)
        }
    }

    private mutating func note(_ canaries: [Canary], via path: [String]) {
        guard !canaries.isEmpty else { return }
        let via = path.joined(separator: " > ")
        sightings += canaries.map { Sighting(canary: $0, via: via) }
    }

    /// Decodes each run of base64 text around `hits` (of the probes) once per alignment its
    /// markers call for (the text before a marker may be anything, so its position says where
    /// groups of four start).
    private mutating func searchBase64(_ bytes: UnsafeBufferPointer<UInt8>, at hits: [Int], via path: [String]) {
        var searched = 0
        for hit in hits where hit >= searched && budget > 0 {
            let run = Base64.run(around: hit, in: bytes)
            searched = run.upperBound
            let text = Base64.characters(of: UnsafeBufferPointer(rebasing: bytes[run]))
            for alignment in Base64.alignments(in: text) {
                let decoded = Base64.decode(text[alignment...], limit: budget)
                budget -= decoded.count
                search(decoded, via: path + ["base64"])
            }
        }
    }

    /// Tries each place compressed data may start (`starts`, in order); past data read whole,
    /// the search goes on after it.
    private mutating func searchCompressed(
        _ bytes: UnsafeBufferPointer<UInt8>, at starts: [(at: Int, format: Compressed.Format)], via path: [String]
    ) {
        var next = 0
        for (start, format) in starts where start >= next && budget > 0 {
            switch format {
            case .gzip, .zlib: next = readStream(at: start, format, in: bytes, via: path)
            case .zip: next = readZipEntry(at: start, in: bytes, via: path)
            }
        }
    }

    /// Reads the gzip or zlib stream at `start`; returns where to search next.
    private mutating func readStream(
        at start: Int, _ format: Compressed.Format, in bytes: UnsafeBufferPointer<UInt8>, via path: [String]
    ) -> Int {
        // 15 + 32: a 32 KiB window, gzip or zlib by its header.
        let inflated = inflate(UnsafeBufferPointer(rebasing: bytes[start...]), windowBits: 15 + 32)
        search(inflated.output, via: path + [format == .gzip ? "gzip" : "zlib"])
        return inflated.ended ? start + max(inflated.consumed, 1) : start + 1
    }

    /// Reads the zip entry whose local header is at `start`, stored or deflated; returns where
    /// to search next.
    private mutating func readZipEntry(at start: Int, in bytes: UnsafeBufferPointer<UInt8>, via path: [String]) -> Int {
        let next = start + ZipEntry.signature.count
        guard let entry = ZipEntry(at: start, in: bytes) else { return next }
        let label = path + ["zip:" + entry.name]
        switch entry.method {
        case ZipEntry.stored:
            let end = entry.dataEnd(in: bytes)
            let data = Array(bytes[entry.dataStart..<min(end, entry.dataStart + budget)])
            budget -= data.count
            search(data, via: label)
            return entry.dataStart + data.count == end ? max(end, next) : next
        case ZipEntry.deflated:
            let end = entry.compressedSize.map { min(entry.dataStart + $0, bytes.count) } ?? bytes.count
            // Negative: raw deflate, no header.
            let inflated = inflate(UnsafeBufferPointer(rebasing: bytes[entry.dataStart..<end]), windowBits: -15)
            search(inflated.output, via: label)
            return inflated.ended ? max(entry.dataStart + inflated.consumed, next) : next
        default:
            return next
        }
    }

    private mutating func inflate(_ input: UnsafeBufferPointer<UInt8>, windowBits: Int32) -> Inflater.Result {
        let inflated = inflater.inflate(input, windowBits: windowBits, limit: budget)
        budget -= inflated.output.count
        return inflated
    }
}

/// Where a buffer needs a closer look, found in one pass over its byte pairs (a bit table of the
/// pairs that start something): where a form of the canary prefix starts, and where compressed
/// data may.
struct Landmarks {
    enum Form {
        case wideText, escapedText, base64
    }

    var forms: [(at: Int, form: Form)] = []
    var compressed: [(at: Int, format: Compressed.Format)] = []

    /// The forms of the canary prefix searched for, and how each is read.
    static let needles: [(bytes: [UInt8], form: Form)] =
        [(WideText.core, .wideText), (EscapedText.marker, .escapedText)] + Base64.probes.map { ($0, .base64) }

    /// The pairs that start a needle or compressed data, a bit each.
    private static let starts: [UInt64] = {
        var bits = [UInt64](repeating: 0, count: 1 << 10)
        let pairs = needles.map { ($0.bytes[0], $0.bytes[1]) } + Compressed.startingPairs
        for key in pairs.map(key) { bits[key >> 6] |= 1 << (key & 63) }
        return bits
    }()

    init(in bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count >= 2 else { return }
        let raw = UnsafeRawBufferPointer(bytes)
        Self.starts.withUnsafeBufferPointer { starts in
            for index in 0..<(bytes.count - 1) {
                let key = Int(UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt16.self)))
                guard starts[key >> 6] & 1 << (key & 63) != 0 else { continue }
                look(at: index, in: bytes)
            }
        }
    }

    private mutating func look(at index: Int, in bytes: UnsafeBufferPointer<UInt8>) {
        for needle in Self.needles
        where index + needle.bytes.count <= bytes.count
            && bytes[index..<index + needle.bytes.count].elementsEqual(needle.bytes)
        {
            forms.append((index, needle.form))
        }
        if let format = Compressed.format(at: index, in: bytes) { compressed.append((index, format)) }
    }

    private static func key(_ pair: (UInt8, UInt8)) -> Int { Int(pair.0) | Int(pair.1) << 8 }
}

/// Every place `needle` starts in `bytes`.
func positions(of needle: [UInt8], in bytes: UnsafeBufferPointer<UInt8>) -> [Int] {
    var found: [Int] = []
    var index = 0
    while let next = firstPosition(of: needle, in: bytes, from: index) {
        found.append(next)
        index = next + 1
    }
    return found
}

/// Where `needle` first starts in `bytes` at or after `start`: memchr for its first byte, then
/// a comparison.
func firstPosition(of needle: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
    guard let base = bytes.baseAddress, let first = needle.first else { return nil }
    var index = start
    while index + needle.count <= bytes.count {
        guard let hit = memchr(base + index, Int32(first), bytes.count - needle.count + 1 - index) else { return nil }
        let position = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
        if memcmp(base + position, needle, needle.count) == 0 { return position }
        index = position + 1
    }
    return nil
}

// MARK: - Text

/// ASCII text stored as UTF-16, in either byte order (binary plists store text that is not all
/// ASCII as UTF-16BE).
enum WideText {
    /// `SDLAB-CANARY/` with a zero byte between its characters: how both byte orders store it,
    /// short of the zero before it (big-endian) or after it (little-endian).
    static let core: [UInt8] = Array(Canary.prefix.utf8.flatMap { [$0, 0] }.dropLast())
    /// The most characters read at a hit: more than any canary.
    static let longest = 512

    /// The canaries in the UTF-16 text whose `core` is at `start`, with its byte order:
    /// `utf16le` or `utf16be`.
    static func canaries(at start: Int, in bytes: UnsafeBufferPointer<UInt8>) -> [(Canary, String)] {
        guard let text = text(at: start, in: bytes) else { return [] }
        return Canary.all(inUTF8: text.characters).map { ($0, text.order) }
    }

    /// The ASCII text from `start`, in the byte order that reads more of it. The same bytes
    /// read little-endian from `start` and big-endian from the zero before it, and differ only
    /// in where the text ends; when that is the same too, the order whose text starts at an
    /// even offset wins (text written as UTF-16 is usually aligned).
    static func text(at start: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (characters: [UInt8], order: String)? {
        let little = ascii(from: start, highByteAfter: true, in: bytes)
        let big = start > 0 ? ascii(from: start, highByteAfter: false, in: bytes) : []
        let readings = [(little, "utf16le"), (big, "utf16be")].filter { $0.0.count >= Canary.prefix.utf8.count }
        guard readings.count == 2 else { return readings.first }
        return big.count > little.count || (big.count == little.count && start % 2 == 1) ? readings[1] : readings[0]
    }

    /// The ASCII characters one every other byte from `start`, while the byte beside each (its
    /// high byte, after it or before it) is zero.
    static func ascii(from start: Int, highByteAfter: Bool, in bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var characters: [UInt8] = []
        var index = start
        while characters.count < longest, index < bytes.count, (1..<0x80).contains(bytes[index]) {
            let high = highByteAfter ? index + 1 : index - 1
            guard high < bytes.count, bytes[high] == 0 else { break }
            characters.append(bytes[index])
            index += 2
        }
        return characters
    }
}

/// Text in JSON strings whose slashes the encoder escaped (Foundation's JSONEncoder does by
/// default): `SDLAB-CANARY\/cou1\/…`.
enum EscapedText {
    static let marker = Array("SDLAB-CANARY\\/".utf8)

    /// The canaries in the escaped text whose `marker` is at `start`.
    static func canaries(at start: Int, in bytes: UnsafeBufferPointer<UInt8>) -> [Canary] {
        Canary.all(inUTF8: unescaped(from: start, in: bytes))
    }

    /// The text from `start` with `\/` read as `/`, up to the first byte no canary holds.
    static func unescaped(from start: Int, in bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var text: [UInt8] = []
        var index = start
        while index < bytes.count, text.count < WideText.longest {
            if bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "/") {
                text.append(UInt8(ascii: "/"))
                index += 2
                continue
            }
            guard isNameByte(bytes[index]) else { break }
            text.append(bytes[index])
            index += 1
        }
        return text
    }

    /// What names, kinds and numbers are made of.
    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."):
            true
        default: false
        }
    }
}

// MARK: - Base64

/// Base64 text as files hold it: either alphabet (standard `+/`, URL-safe `-_`), with or without
/// padding, in lines (indented or not), inside JSON strings (`\/`, `\n`).
enum Base64 {
    /// The characters of an encoding that depend on the encoded bytes alone, whatever surrounds
    /// them.
    struct Marker {
        var text: [UInt8]
        /// The position of its first character in its group of four.
        var lead: Int
    }

    static let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    static let urlSafe = Array(standard.dropLast(2)) + Array("-_".utf8)

    /// Each byte's sextet in either alphabet; 0xFF for the rest.
    static let sextets: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in standard.enumerated() { table[Int(character)] = UInt8(value) }
        for (value, character) in urlSafe.enumerated() { table[Int(character)] = UInt8(value) }
        return table
    }()

    /// The canary prefix at each byte offset in a group of three, and the gzip and zip magic
    /// numbers at the start of the data (base64 of compressed data), in both alphabets.
    static let markers: [Marker] = {
        let wanted =
            (0..<3).map { (Array(Canary.prefix.utf8), $0) } + [([0x1F, 0x8B, 0x08], 0), (ZipEntry.signature, 0)]
        let all = wanted.flatMap { bytes, shift in
            [standard, urlSafe].map { marker(of: bytes, shift: shift, alphabet: $0) }
        }
        return all.enumerated().filter { index, marker in !all[..<index].contains { $0.text == marker.text } }.map {
            $0.element
        }
    }()

    /// What is searched for: each long marker's first and last eight characters, one of which
    /// a line break inside the marker leaves whole; short markers whole.
    static let probes: [[UInt8]] = {
        let all = markers.flatMap { marker in
            marker.text.count >= 16 ? [Array(marker.text.prefix(8)), Array(marker.text.suffix(8))] : [marker.text]
        }
        return all.enumerated().filter { index, probe in !all[..<index].contains(probe) }.map(\.element)
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

    /// The stretch of base64 text around `index`: base64 characters, line breaks and tabs, and the
    /// JSON escapes `\/`, `\n`, `\r` and `\t`.
    static func run(around index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int> {
        var start = index
        var end = index
        while start > 0, isText(bytes[start - 1]) || isEscape(at: start - 1, in: bytes) { start -= 1 }
        while end < bytes.count, isText(bytes[end]) || isEscape(at: end, in: bytes) { end += 1 }
        return start..<end
    }

    /// The run's base64 characters: `\/` read as `/`, line breaks, tabs and other escapes dropped.
    static func characters(of run: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var characters: [UInt8] = []
        characters.reserveCapacity(run.count)
        var index = 0
        while index < run.count {
            if isEscape(at: index, in: run) {
                if run[index + 1] == UInt8(ascii: "/") { characters.append(UInt8(ascii: "/")) }
                index += 2
                continue
            }
            if sextets[Int(run[index])] != 0xFF { characters.append(run[index]) }
            index += 1
        }
        return characters
    }

    /// Where groups of four start in `text` for each marker it holds, from 0 to 3.
    static func alignments(in text: [UInt8]) -> [Int] {
        let found = text.withUnsafeBufferPointer { text in
            markers.flatMap { marker in positions(of: marker.text, in: text).map { (($0 - marker.lead) % 4 + 4) % 4 } }
        }
        return Set(found).sorted()
    }

    /// The bytes `text` encodes, at most `limit`; a last group of two or three characters gives
    /// one or two bytes.
    static func decode(_ text: ArraySlice<UInt8>, limit: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(text.count / 4 * 3 + 2, limit))
        var bits: UInt32 = 0
        var held = 0
        for character in text where bytes.count < limit {
            bits = bits << 6 | UInt32(sextets[Int(character)])
            held += 6
            guard held >= 8 else { continue }
            held -= 8
            bytes.append(UInt8(truncatingIfNeeded: bits >> held))
        }
        return bytes
    }

    /// A base64 character, or the white space between lines (not a space, which would join
    /// every word of a text).
    private static func isText(_ byte: UInt8) -> Bool {
        sextets[Int(byte)] != 0xFF || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n")
            || byte == UInt8(ascii: "\r")
    }

    /// Whether a JSON escape that base64 text may hold starts at `index`.
    private static func isEscape(at index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count else { return false }
        return "/nrt".utf8.contains(bytes[index + 1])
    }
}

// MARK: - Compressed data

enum Compressed {
    enum Format { case gzip, zlib, zip }

    /// The byte pairs compressed data starts with: gzip's 1f 8b, zip's `PK`, and each valid
    /// zlib header (deflate, a window of at most 32 KiB, a header check that holds, no preset
    /// dictionary).
    static let startingPairs: [(UInt8, UInt8)] = {
        let methods = (0..<8).map { UInt8($0 << 4 | 8) }
        let zlib = methods.flatMap { method in (0...255).map { (method, UInt8($0)) } }
        return [(0x1F, 0x8B), (0x50, 0x4B)] + zlib.filter { isZlibHeader($0.0, $0.1) }
    }()

    /// What compressed data may start at `index`, by its magic number: gzip's 1f 8b 08
    /// (deflate), a zlib header, a zip local file header.
    static func format(at index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Format? {
        guard index + 2 < bytes.count else { return nil }
        let (first, second, third) = (bytes[index], bytes[index + 1], bytes[index + 2])
        if first == 0x1F, second == 0x8B, third == 0x08 { return .gzip }
        if isZlibHeader(first, second) { return .zlib }
        if first == 0x50, second == 0x4B, third == 0x03, index + 3 < bytes.count, bytes[index + 3] == 0x04 {
            return .zip
        }
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
    /// The methods read: the data as it is, or raw deflate.
    static let stored = 0
    static let deflated = 8

    var name: String
    var method: Int
    var flags: Int
    var dataStart: Int
    /// None when written as a stream (flag bit 3: the sizes follow the data, in a data
    /// descriptor) or in zip64 (the sizes in an extra field).
    var compressedSize: Int?

    /// The entry at `start`, if its data is stored or deflated and not encrypted (the rest is
    /// not read, and this rules out most headers that are magic numbers by chance).
    init?(at start: Int, in bytes: UnsafeBufferPointer<UInt8>) {
        guard start + 30 <= bytes.count else { return nil }
        func number(at offset: Int, size: Int) -> Int {
            (0..<size).reduce(0) { value, byte in value | Int(bytes[start + offset + byte]) << (8 * byte) }
        }
        (flags, method) = (number(at: 6, size: 2), number(at: 8, size: 2))
        guard method == Self.stored || method == Self.deflated, flags & 1 == 0 else { return nil }
        let (nameLength, extraLength) = (number(at: 26, size: 2), number(at: 28, size: 2))
        dataStart = start + 30 + nameLength + extraLength
        guard dataStart <= bytes.count else { return nil }
        let name = UnsafeBufferPointer(rebasing: bytes[(start + 30)..<(start + 30 + nameLength)])
        self.name = String(decoding: name, as: UTF8.self)
        let size = number(at: 18, size: 4)
        compressedSize = size == 0xFFFF_FFFF || (size == 0 && flags & 8 != 0) ? nil : size
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

/// zlib's inflate, set up once per file and reset for each stream, so that a false start costs
/// a reset and the few bytes read before the first error.
final class Inflater {
    struct Result {
        var output: [UInt8]
        /// Input bytes read.
        var consumed: Int
        /// Whether the stream ended as its format says (else it failed, ran out of input or hit the limit).
        var ended: Bool
    }

    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private var chunk = [UInt8](repeating: 0, count: 16 << 10)
    private let ready: Bool

    init() {
        stream.initialize(to: z_stream())
        ready = inflateInit2_(stream, 15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK
    }

    deinit {
        if ready { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Inflates the stream at the start of `input` (`windowBits` as zlib takes them) into at
    /// most `limit` bytes.
    func inflate(_ input: UnsafeBufferPointer<UInt8>, windowBits: Int32, limit: Int) -> Result {
        guard ready, let base = input.baseAddress, inflateReset2(stream, windowBits) == Z_OK else {
            return Result(output: [], consumed: 0, ended: false)
        }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: base)
        stream.pointee.avail_in = UInt32(clamping: input.count)
        var output: [UInt8] = []
        var status = Z_OK
        while status == Z_OK, output.count < limit {
            let room = min(chunk.count, limit - output.count)
            status = chunk.withUnsafeMutableBufferPointer { chunk in
                stream.pointee.next_out = chunk.baseAddress
                stream.pointee.avail_out = UInt32(room)
                return CZlib.inflate(stream, Z_NO_FLUSH)
            }
            output += chunk[..<(room - Int(stream.pointee.avail_out))]
        }
        return Result(
            output: output, consumed: input.count - Int(stream.pointee.avail_in), ended: status == Z_STREAM_END)
    }
}

extension Collection where Element == LeakScanner.Finding {
    /// By user and kind, with the number of canaries and where, each file with how it was read
    /// unless as plain UTF-8: `cou1 plain ×2 (caches/notes.gz [gzip], documents/notes.sqlite-wal)`;
    /// at most three files named per group.
    public var described: String {
        let groups = Dictionary(grouping: self) { "\($0.canary.user) \($0.canary.kind.rawValue)" }
        return groups.keys.sorted().map { group in
            let findings = groups[group]!
            let files = Dictionary(grouping: findings, by: \.place).map { place, found in
                let ways = Set(found.flatMap { $0.via.components(separatedBy: ", ") }).subtracting([""]).sorted()
                return ways.isEmpty ? place : "\(place) [\(ways.joined(separator: ", "))]"
            }.sorted()
            let shown =
                files.prefix(3).joined(separator: ", ") + (files.count > 3 ? ", … \(files.count - 3) more files" : "")
            return "\(group) ×\(Set(findings.map(\.canary)).count) (\(shown))"
        }.joined(separator: ", ")
    }
}
