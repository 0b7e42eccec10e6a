import Crypto
import DeviceProcesses
import Dispatch
import FoundationEssentials
import SharedDevice
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The device attacker of Docs/behaviour.md §8: reads every entry of the containers it is
/// given, its name and attributes, and every file as the app reads it back (its format with the
/// format's own library, and the encodings and compressions it holds: `CanaryReader`), and
/// opens every value that may be sealed under every key-sized value found there: data a cleanup
/// encoded, compressed or hid in a format instead of deleting is still there.
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
        /// How the canary was read: none when the file holds it as UTF-8 text, else each way
        /// it was read in this file with the fewest decodings.
        public var ways: [Route]

        public init(canary: Canary, app: String, file: String, place: String, encrypted: Bool, ways: [Route] = []) {
            self.canary = canary
            self.app = app
            self.file = file
            self.place = place
            self.encrypted = encrypted
            self.ways = ways
        }

        /// The ways as a person reads them, joined by `, `; empty for UTF-8 text.
        public var via: String { ways.map(\.description).joined(separator: ", ") }
    }

    /// One way a canary was read: each decoding from the file's bytes to it, outermost first:
    /// `utf16le`, `utf16be`, `json`, `base64`, `hex`, `percent`, `gzip`, `zlib`, `zip:ENTRY`,
    /// `sqlite:TABLE.COLUMN`, `plist`, `mime:part N (TYPE)`, `aes-gcm`, `chachapoly`; `name`
    /// (spelled in its path's names), `link` (its target), `xattr-name` and `xattr:NAME` (an
    /// extended attribute's name, its value). Shown joined by ` > ` (`zip:notes.txt > base64`).
    public struct Route: Hashable, Sendable, Comparable, CustomStringConvertible {
        public var decodings: [String]

        public init(_ decodings: [String]) { self.decodings = decodings }

        public var description: String { decodings.joined(separator: " > ") }

        public static func < (a: Route, b: Route) -> Bool { a.description < b.description }
    }

    /// A file, folder or part of one the scanner could not read: the scan that meets one proves
    /// nothing of it, and says so (`Scan.isComplete`).
    public struct Unreadable: Hashable, Sendable, CustomStringConvertible {
        /// The container (app) it is in.
        public var app: String
        /// Its path, escaped as places are.
        public var file: String
        /// Where in the container, as `Finding.place`: `documents/old-\xff`, `.` for the container.
        public var place: String
        /// Why: `cannot be opened: Permission denied (mode 0, owner 1000)`,
        /// `zip entry notes.txt is encrypted: Passphrase required for this entry`, `decoded past the budget of 256 MiB …`.
        public var reason: String

        public init(app: String, file: String, place: String, reason: String) {
            self.app = app
            self.file = file
            self.place = place
            self.reason = reason
        }

        /// `incomplete: FILE: REASON`.
        public var description: String { "incomplete: \(file): \(reason)" }
    }

    /// An entry the scan read all there is of, which holds no bytes to read: a FIFO or a socket.
    public struct Note: Hashable, Sendable, CustomStringConvertible {
        /// The container (app) it is in.
        public var app: String
        /// Where in the container, as `Finding.place`.
        public var place: String
        /// `is a FIFO: it holds no bytes at rest; its name and attributes were read`.
        public var text: String

        public init(app: String, place: String, text: String) {
            self.app = app
            self.place = place
            self.text = text
        }

        /// `documents/p is a FIFO: …`.
        public var description: String { "\(place) \(text)" }
    }

    /// What a scan read: its findings (the scan is a collection of them), what it could not
    /// read, what it read that holds no bytes, and what the scenario declared out of scope.
    /// Only a complete scan proves that nothing else is there.
    public struct Scan: RandomAccessCollection, Sendable {
        public var findings: [Finding]
        /// Every file or part of one not read, and why; empty when the scan is complete.
        public var unreadable: [Unreadable]
        /// The places not read because the scenario declares them out of scope, as `app/place`.
        public var outOfScope: [String]
        /// The FIFOs and sockets met: read by their names and attributes, as they hold nothing else.
        public var notes: [Note]

        public init(
            findings: [Finding] = [], unreadable: [Unreadable] = [], outOfScope: [String] = [], notes: [Note] = []
        ) {
            self.findings = findings
            self.unreadable = unreadable
            self.outOfScope = outOfScope
            self.notes = notes
        }

        /// Whether everything in scope was read: only then does a scan that found nothing mean
        /// nothing is there.
        public var isComplete: Bool { unreadable.isEmpty }

        public var startIndex: Int { findings.startIndex }
        public var endIndex: Int { findings.endIndex }
        public subscript(position: Int) -> Finding { findings[position] }

        /// The scan of one app's container.
        public func of(app: String) -> Scan {
            Scan(
                findings: findings.filter { $0.app == app }, unreadable: unreadable.filter { $0.app == app },
                outOfScope: outOfScope.filter { $0.hasPrefix(app + "/") }, notes: notes.filter { $0.app == app })
        }
    }

    /// How much the scanner reads, at most: past either, what is left is reported, not skipped.
    public struct Budget: Sendable {
        /// A file larger than this is not read (it is held in memory whole).
        public var fileBytes: Int
        /// Bytes decoded from one file, all its decodings together (a zip bomb costs no more).
        public var decodedBytes: Int
        /// Bytes tried as sealed boxes in a scan, each under every key: a container of many
        /// key-sized values (a table of hashes) and many binary values would take hours.
        public var sealedTries: Int

        public init(fileBytes: Int = 1 << 30, decodedBytes: Int = 256 << 20, sealedTries: Int = 8 << 30) {
            self.fileBytes = fileBytes
            self.decodedBytes = decodedBytes
            self.sealedTries = sealedTries
        }

        /// 1 GiB read from a file, 256 MiB decoded from it, 8 GiB tried as sealed boxes (a few
        /// seconds of AES-GCM).
        public static let standard = Budget()
    }

    /// The containers to read: app name and folder.
    public let containers: [(app: String, root: String)]
    /// Per app, the places its scenario declares out of scope, as `fnmatch` patterns matched
    /// against the place (`*` also crosses `/`).
    public let outOfScope: [String: [String]]
    public let budget: Budget
    /// The containers were listed from a folder (every one of them is there to read).
    private var listed = false
    /// The containers folder, when it could not be listed, and why.
    private var containersFolderProblem: (folder: String, reason: String)?

    /// Every container in `containersFolder` (a folder per app, named after it).
    public init(containersFolder: String, outOfScope: [String: [String]] = [:], budget: Budget = .standard) {
        // Each entry: one that is not a folder is said to be unreadable as a container, not left out.
        let apps = FolderListing.entries(of: containersFolder).map(\.name)
        containers = apps.sorted().map { ($0, containersFolder + "/" + $0) }
        listed = true
        if let folder = opendir(containersFolder) {
            closedir(folder)
        } else if errno != ENOENT {
            containersFolderProblem = (containersFolder, "cannot be listed: \(ContainerWalk.error(errno))")
        }
        self.outOfScope = outOfScope
        self.budget = budget
    }

    /// One app's container.
    public init(container root: String, app: String, outOfScope: [String] = [], budget: Budget = .standard) {
        containers = [(app, root)]
        self.outOfScope = outOfScope.isEmpty ? [:] : [app: outOfScope]
        self.budget = budget
    }

    /// Everything readable, and everything that could not be read. Each file is read once;
    /// what needs the container's keys and zstd dictionaries (a value that may be a sealed box,
    /// a frame made with a dictionary) is kept from that reading and finished once every file
    /// has been read and every key and dictionary is known.
    public func scan() -> Scan {
        var scan = Scan()
        if let (folder, reason) = containersFolderProblem {
            scan.unreadable.append(Unreadable(app: "", file: folder, place: ".", reason: reason))
        }
        var findings = FindingsByFile()
        var keys: Set<[UInt8]> = []
        var dictionaries = ZstdDictionaries()
        var later: [(app: String, file: String, place: String, left: CanaryReader.Later)] = []
        for (app, root) in containers {
            // By depth, the canaries spelled in the path of the folder last visited there.
            var spelledAbove: [Set<Canary>] = []
            let skipped = entries(app: app, root: root) { entry in
                let (place, item) = (entry.place, entry.item)
                let file = place == "." ? root : root + "/" + place
                func unreadable(_ reason: String) {
                    scan.unreadable.append(Unreadable(app: app, file: file, place: place, reason: reason))
                }
                var reader = CanaryReader(budget: budget.decodedBytes)
                var sightings: [CanaryReader.Sighting] = []
                var left = CanaryReader.Later()
                switch item {
                case .unreadable(let reason): unreadable(reason)
                case .link(let target): sightings += reader.canaries(in: target, via: ["link"])
                case .noBytesAtRest(let kind):
                    let text = "is a \(kind): it holds no bytes at rest; its name and attributes were read"
                    scan.notes.append(Note(app: app, place: place, text: text))
                case .deviceNode(let kind, let major, let minor):
                    let node = "is a \(kind) device node (\(major):\(minor))"
                    unreadable(node + ", which no iOS app can make: its content is not read")
                case .folder: break
                case .file(let descriptor, let size):
                    switch ContainerWalk.contents(of: descriptor, size: size, limit: budget.fileBytes) {
                    case .failure(.tooLarge(let size)):
                        unreadable("is \(size) bytes, more than the \(sizeText(budget.fileBytes)) a file is read to")
                    case .failure(.error(let error)): unreadable("cannot be read: \(error)")
                    case .success(let bytes):
                        _ = dictionaries.add(bytes)
                        let database = Self.database(bytes, in: descriptor, limit: budget.decodedBytes)
                        if let database, database.values.count >= 256 {
                            let read = Self.readOnEveryCore(bytes, database, budget: budget.decodedBytes)
                            sightings += read.sightings
                            read.problems.forEach(unreadable)
                            left = read.later
                        } else {
                            sightings += reader.canaries(in: bytes, formats: database)
                        }
                    }
                }
                sightings += Self.namesAndAttributes(
                    of: entry, in: app, spelledAbove: &spelledAbove, with: &reader, unreadable: unreadable)
                for problem in reader.problems { unreadable(problem) }
                findings.add(sightings, app: app, file: file, place: place)
                left.add(reader.later)
                keys.formUnion(left.keys)
                if !left.isEmpty { later.append((app, file, place, left)) }
            }
            scan.outOfScope += skipped.map { app + "/" + $0 }
        }
        let symmetricKeys = keys.sorted { $0.lexicographicallyPrecedes($1) }.map { SymmetricKey(data: $0) }
        var tries = 0
        for (app, file, place, var left) in later where !symmetricKeys.isEmpty || !left.frames.isEmpty {
            // Each value under every key, AES-GCM and ChaCha20-Poly1305, a pass over it each time.
            let cost = left.sealed.reduce(0) { $0 + $1.bytes.count + 64 } * symmetricKeys.count * 2
            if tries + cost > budget.sealedTries, !left.sealed.isEmpty {
                let reason =
                    "its \(left.sealed.count) values that may be sealed boxes were not tried under all "
                    + "\(symmetricKeys.count) possible keys: more than the \(sizeText(budget.sealedTries)) a scan tries"
                scan.unreadable.append(Unreadable(app: app, file: file, place: place, reason: reason))
                left.sealed = []
            }
            tries += left.sealed.isEmpty ? 0 : cost
            let (sightings, problems) = Self.finish(
                left, keys: symmetricKeys, dictionaries: dictionaries, budget: budget.decodedBytes)
            for problem in problems {
                scan.unreadable.append(Unreadable(app: app, file: file, place: place, reason: problem))
            }
            findings.add(sightings, app: app, file: file, place: place)
        }
        scan.findings = findings.sorted
        return scan
    }

    /// A file read as its format gave many values (a database's cells): the file's bytes on one
    /// core and the values on the others (about as many bytes), each with its share of the
    /// file's budget.
    private static func readOnEveryCore(_ bytes: [UInt8], _ reading: FormatReading, budget: Int) -> (
        sightings: [CanaryReader.Sighting], problems: [String], later: CanaryReader.Later
    ) {
        let results = onEveryCore { part, parts in
            var share = FormatReading()
            let (first, step) = parts == 1 ? (0, 1) : (part - 1, parts - 1)
            if parts == 1 || part > 0 {
                share.values = stride(from: first, to: reading.values.count, by: step).map { reading.values[$0] }
            }
            if part == 0 { (share.problems, share.stopped) = (reading.problems, reading.stopped) }
            var reader = CanaryReader(budget: budget / parts)
            let sightings = reader.canaries(in: part == 0 ? bytes : [], formats: share)
            return (sightings: sightings, problems: reader.problems, later: reader.later)
        }
        var later = CanaryReader.Later()
        results.forEach { later.add($0.later) }
        return (results.flatMap(\.sightings), results.flatMap(\.problems), later)
    }

    /// What a first reading of a file left, read with every key and dictionary: on every core,
    /// as each value is tried under every key (AES-GCM sets each key up at each try).
    private static func finish(
        _ left: CanaryReader.Later, keys: [SymmetricKey], dictionaries: ZstdDictionaries, budget: Int
    ) -> (sightings: [CanaryReader.Sighting], problems: [String]) {
        let results = onEveryCore(if: left.sealed.count >= 64) { part, parts in
            var share = CanaryReader.Later()
            share.sealed = stride(from: part, to: left.sealed.count, by: parts).map { left.sealed[$0] }
            if part == 0 { share.frames = left.frames }
            var reader = CanaryReader(budget: budget / parts, keys: keys, dictionaries: dictionaries)
            return (sightings: reader.canaries(in: share), problems: reader.problems)
        }
        return (results.flatMap(\.sightings), Array(Set(results.flatMap(\.problems))).sorted())
    }

    /// `work(part, parts)` for each part, one a core (at most 8), in order of part; on this
    /// thread alone unless `worthIt`.
    private static func onEveryCore<Result: Sendable>(
        if worthIt: Bool = true, _ work: @Sendable (Int, Int) -> Result
    ) -> [Result] {
        guard worthIt else { return [work(0, 1)] }
        let parts = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))
        let results = Mutex([Result?](repeating: nil, count: parts))
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            let result = work(part, parts)
            results.withLock { $0[part] = result }
        }
        return results.withLock { $0.compactMap { $0 } }
    }

    /// One finding per canary and file: a canary read there several ways (its text, and in
    /// base64 beside it) is one record left, its ways listed together.
    private struct FindingsByFile {
        private var byKey: [String: Finding] = [:]

        mutating func add(_ sightings: [CanaryReader.Sighting], app: String, file: String, place: String) {
            for sighting in sightings {
                let key = file + "\u{0}" + sighting.canary.description
                let encrypted = sighting.route.contains(where: CanaryReader.ciphers.contains)
                let ways = sighting.route.isEmpty ? [] : [Route(sighting.route)]
                guard var known = byKey[key] else {
                    byKey[key] = Finding(
                        canary: sighting.canary, app: app, file: file, place: place, encrypted: encrypted, ways: ways)
                    continue
                }
                known.ways = LeakScanner.merged(known.ways, ways)
                known.encrypted = known.encrypted && encrypted
                byKey[key] = known
            }
        }

        /// By app, file and canary; each canary's text made once, not at each comparison.
        var sorted: [Finding] {
            byKey.values.map { (key: ($0.app, $0.file, $0.canary.description), finding: $0) }
                .sorted { $0.key < $1.key }.map(\.finding)
        }
    }

    /// The canaries an attacker reads in an entry's name (its path's, new at this entry: one
    /// spelled across folder names is found where its last name ends it, not again below), its
    /// extended attributes' names and their values. `spelledAbove`: by depth, the canaries in
    /// the path of the folder last visited there (the walk visits a folder before what it holds).
    private static func namesAndAttributes(
        of entry: ContainerWalk.Entry, in app: String, spelledAbove: inout [Set<Canary>],
        with reader: inout CanaryReader,
        unreadable: (String) -> Void
    ) -> [CanaryReader.Sighting] {
        var sightings: [CanaryReader.Sighting] = []
        var spelled = entry.pathTail.isEmpty ? [] : reader.canaries(in: entry.pathTail, via: ["name"])
        let name = Array(entry.pathTail.split(separator: UInt8(ascii: "/")).last ?? [])
        let named = Canary.all(inName: name, app: app).filter { canary in !spelled.contains { $0.canary == canary } }
        spelled += named.map { CanaryReader.Sighting(canary: $0, route: ["name"]) }
        let above = entry.depth > 0 && entry.depth <= spelledAbove.count ? spelledAbove[entry.depth - 1] : []
        sightings += spelled.filter { !above.contains($0.canary) }
        if case .folder = entry.item {
            spelledAbove.removeSubrange(min(entry.depth, spelledAbove.count)...)
            spelledAbove.append(Set(spelled.map(\.canary)))
        }
        switch entry.attributes() {
        case .failure(let failure): unreadable("its extended attributes cannot be read: \(failure)")
        case .success(let attributes):
            for attribute in attributes {
                sightings += reader.canaries(in: attribute.name, via: ["xattr-name"])
                let name = PathText.escaped(attribute.name)
                sightings += reader.canaries(in: attribute.value, via: ["xattr:" + name])
            }
        }
        return sightings
    }

    /// Walks one container, leaving out what its app's patterns declare out of scope; returns
    /// the places left out.
    private func entries(
        app: String, root: String, _ visit: (ContainerWalk.Entry) -> Void
    ) -> [String] {
        let patterns = outOfScope[app] ?? []
        var skipped: [String] = []
        var walk = ContainerWalk(root: root)
        walk.listed = listed
        if !patterns.isEmpty {
            walk.outOfScope = { place in
                guard patterns.contains(where: { fnmatch($0, place, 0) == 0 }) else { return false }
                skipped.append(place)
                return true
            }
        }
        walk.walk(visit)
        return skipped
    }

    /// Two ways a canary was read, as one: plain text (no way) says it all; else the ways with the
    /// fewest decodings, each once (an attacker takes the shortest: read as base64, it need not
    /// also be told it is in JSON).
    static func merged(_ first: [Route], _ second: [Route]) -> [Route] {
        guard !first.isEmpty, !second.isEmpty else { return [] }
        let ways = Set(first + second)
        let fewest = ways.map(\.decodings.count).min() ?? 0
        return ways.filter { $0.decodings.count == fewest }.sorted()
    }

    /// Another user's readable data, split as Docs/behaviour.md §8 says: user data is always a leak;
    /// preferences and common data are retained when the app's cleanup declares it keeps them,
    /// else leaks too.
    public static func judge(
        _ findings: some Collection<Finding>, currentUser: String?,
        cleanup: CleanupPolicy
    ) -> (leaks: [Finding], retained: [Finding]) {
        let others = findings.filter { $0.canary.user != currentUser }
        return (others.filter { cleanup.leaks($0.canary.kind) }, others.filter { !cleanup.leaks($0.canary.kind) })
    }

    /// The file `bytes`, open as `descriptor`, read as a SQLite database with the write-ahead log
    /// and rollback journal beside it, as the app reads it; nil when it is none.
    private static func database(_ bytes: [UInt8], in descriptor: Int32, limit: Int) -> FormatReading? {
        bytes.withUnsafeBufferPointer { bytes in
            guard SQLiteDatabase.isDatabase(bytes) else { return nil }
            let path = ContainerWalk.path(of: descriptor)
            let sibling = { (suffix: String) in
                path.flatMap { ContainerWalk.contents(ofFileAt: $0 + Array(suffix.utf8)) }
            }
            return SQLiteDatabase.read(
                bytes, writeAheadLog: sibling("-wal"), journal: sibling("-journal"), limit: limit)
        }
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
                let ways = Set(found.flatMap(\.ways)).sorted().map(\.description)
                return ways.isEmpty ? place : "\(place) [\(ways.joined(separator: ", "))]"
            }.sorted()
            let shown =
                files.prefix(3).joined(separator: ", ") + (files.count > 3 ? ", … \(files.count - 3) more files" : "")
            return "\(group) ×\(Set(findings.map(\.canary)).count) (\(shown))"
        }.joined(separator: ", ")
    }
}
