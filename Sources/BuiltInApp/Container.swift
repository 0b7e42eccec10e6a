import Crypto
import DeviceProcesses
import FoundationEssentials
import Glibc
import LeakScan
import SDKClients
import SharedDevice

/// An app's container on disk (Docs/behaviour.md §8): `documents`, `preferences`, `caches` and
/// `keychain`, private to the device's user (folders 0700, files 0600). Every stored value
/// carries its canary, so the leak scanner can tell whose data a readable file holds.
///
/// Layout: one file per write of records, `documents/USER/KIND-FIRST-LAST.txt` (plain) or
/// `.sealed` (sensitive, external: one AES-GCM box) and `caches/USER/common-FIRST-LAST.txt`, so
/// a cleanup deletes a few files rather than one per record; one file per user of preferences,
/// `preferences/USER.json`; the keychain folder holds `NAME.key` (raw 256-bit keys) and the
/// SDK's saved items.
///
/// Record files are named after users, and user names come from the bus: they are reached
/// through `ConfinedFolder`, so no name and no planted link can make a write or a delete land
/// outside the container.
public struct Container: Sendable {
    public let root: String
    public let app: String
    /// The container's keychain folder.
    public let keychain: Keychain
    /// The container's own files, reached beneath it only.
    private let files: ConfinedFolder

    public enum Folder: String, CaseIterable, Sendable {
        case documents, preferences, caches, keychain
    }

    /// The keys a reader holds: the data key of `sensitive` records and the current user's
    /// `external` key.
    public struct Keys: Sendable {
        public var data: SymmetricKey?
        public var external: SymmetricKey?

        public init(data: SymmetricKey? = nil, external: SymmetricKey? = nil) {
            self.data = data
            self.external = external
        }
    }

    /// Opens the container, creating its folders on first use.
    public init(root: String, app: String) throws {
        self.root = root
        self.app = app
        for folder in [root] + Folder.allCases.map({ root + "/" + $0.rawValue }) {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        }
        keychain = try Keychain(folder: root + "/" + Folder.keychain.rawValue)
        files = try ConfinedFolder(root)
    }

    public func path(_ folder: Folder) -> String { root + "/" + folder.rawValue }

    // MARK: - Records

    /// Stores records the host numbered, all of one kind and one user: a file of them, or the
    /// user's preferences file. `sensitive` needs `keys.data`, `external` needs `keys.external`.
    public func store(_ canaries: [Canary], keys: Keys) throws {
        guard let first = canaries.first else { return }
        let (kind, user) = (first.kind, first.user)
        // The user names a folder here: a name that is none (`..`, `a/b`) would write elsewhere.
        guard DirectoryUser.isValidName(user) else {
            throw WriteFailure(file: "records of \(user), which is not a user name")
        }
        switch kind {
        case .preferences:
            var values = preferenceValues(of: user)
            values += canaries.map { "\($0) preference of \(user)" }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            try files.write(encoder.encode(PreferencesFile(user: user, values: values)), to: preferencesFile(of: user))
        case .common, .plain:
            try files.write(Self.values(canaries), to: recordsFile(canaries, "txt"))
        case .sensitive, .external:
            guard let key = kind == .sensitive ? keys.data : keys.external else { throw MissingKey(kind: kind) }
            try files.write(
                AES.GCM.seal(Self.values(canaries), using: key).combined!, to: recordsFile(canaries, "sealed"))
        }
    }

    public struct MissingKey: Error, CustomStringConvertible {
        public let kind: RecordKind
        public var description: String { "no key to write \(kind.rawValue) records with" }
    }

    public struct DeleteFailure: Error, CustomStringConvertible {
        public let file: String
        public let reason: String
        public var description: String { "cannot delete \(file): \(reason)" }
    }

    public struct WriteFailure: Error, CustomStringConvertible {
        public let file: String
        public var description: String { "cannot write \(file)" }
    }

    /// Every record the holder of `keys` can read, as canaries, in a stable order.
    public func readable(with keys: Keys) -> [Canary] {
        RecordKind.allCases.flatMap { kind in
            storedFiles(of: kind).compactMap { file in read(file, kind: kind, keys: keys) }.flatMap { $0 }
        }.sorted { ($0.user, $0.kind.rawValue, $0.number) < ($1.user, $1.kind.rawValue, $1.number) }
    }

    /// Whether `user` has kept preferences.
    public func hasPreferences(of user: String) -> Bool { files.contains(preferencesFile(of: user)) }

    /// Whether `user` has records of `kind`, readable or not.
    public func hasRecords(_ kind: RecordKind, of user: String) -> Bool { !numbers(of: kind, user: user).isEmpty }

    /// Deletes the records of these kinds: one user's, or every user's.
    public func delete(_ kinds: Set<RecordKind>, of user: String? = nil) throws {
        if let user, !DirectoryUser.isValidName(user) {
            throw DeleteFailure(file: "the records of \(user)", reason: "it is not a user name")
        }
        if kinds.contains(.preferences) {
            for file in storedFiles(of: .preferences, user: user) { try files.remove(file) }
        }
        // Each user folder is listed once, whatever the kinds; it goes with its last record.
        for folder in Set(kinds.subtracting([.preferences]).map(folder(of:))) {
            let userFolders = user.map { [folder.rawValue + "/" + $0] } ?? entries(of: folder.rawValue)
            for userFolder in userFolders {
                // Anything but a folder in a user folder's place (a link, say) is removed itself,
                // never followed.
                guard let stored = files.entries(of: userFolder)?.map({ userFolder + "/" + $0.name }) else {
                    try files.remove(userFolder)
                    continue
                }
                let doomed = stored.filter { file in kinds.contains { Self.holds(file, $0) } }
                for file in doomed { try files.remove(file) }
                if doomed.count == stored.count { try files.remove(userFolder, folder: true) }
            }
        }
    }

    /// Whether a record file (`KIND-FIRST-LAST.SUFFIX`, or a draft of one) holds records of `kind`.
    private static func holds(_ file: String, _ kind: RecordKind) -> Bool {
        file[(file.lastIndex(of: "/").map { file.index(after: $0) } ?? file.startIndex)...].hasPrefix(
            kind.rawValue + "-")
    }

    /// The values stored for canaries, a line each: the canary itself, then some payload.
    static func values(_ canaries: [Canary]) -> Data {
        Data(canaries.map { "\($0) record of \($0.user) in \($0.app)\n" }.joined().utf8)
    }

    /// Where records of every kind but preferences are kept.
    private func folder(of kind: RecordKind) -> Folder { kind == .common ? .caches : .documents }

    /// The file of one write, `KIND-FIRST-LAST.SUFFIX` in the user's folder, which this creates.
    private func recordsFile(_ canaries: [Canary], _ suffix: String) throws -> String {
        let (first, last) = (canaries.first!, canaries.last!)
        let folder = folder(of: first.kind).rawValue + "/" + first.user
        try files.makeFolder(folder)
        return folder + "/\(first.kind.rawValue)-\(first.number)-\(last.number).\(suffix)"
    }

    private func preferencesFile(of user: String) -> String { Folder.preferences.rawValue + "/\(user).json" }

    /// The files that hold records of `kind`: one user's, or every user's.
    private func storedFiles(of kind: RecordKind, user: String? = nil) -> [String] {
        if kind == .preferences {
            // A draft left by a write cut short holds the user's values too, and goes with them.
            let file = user.map { "/\($0).json" } ?? ".json"
            return entries(of: Folder.preferences.rawValue).filter {
                $0.hasSuffix(file) || $0.hasSuffix(file + ConfinedFolder.draftSuffix)
            }
        }
        let folders = user.map { [folder(of: kind).rawValue + "/" + $0] } ?? entries(of: folder(of: kind).rawValue)
        return folders.flatMap(entries(of:)).filter { Self.holds($0, kind) }
    }

    private func read(_ file: String, kind: RecordKind, keys: Keys) -> [Canary]? {
        guard let bytes = files.contents(of: file) else { return nil }
        let plain: Data
        switch kind {
        case .sensitive, .external:
            guard let key = kind == .sensitive ? keys.data : keys.external,
                let box = try? AES.GCM.SealedBox(combined: bytes),
                let opened = try? AES.GCM.open(box, using: key)
            else { return nil }
            plain = opened
        default:
            plain = bytes
        }
        return Canary.all(in: String(decoding: plain, as: UTF8.self)[...]).filter { $0.kind == kind }
    }

    /// The numbers of `user`'s records of `kind`, readable or not: taken from file names for
    /// records, from the user's file for preferences.
    private func numbers(of kind: RecordKind, user: String) -> [Int] {
        if kind == .preferences {
            return Canary.all(in: preferenceValues(of: user).joined(separator: " ")[...]).map(\.number)
        }
        return entries(of: folder(of: kind).rawValue + "/" + user).compactMap { file in
            let name = file.split(separator: "/").last ?? ""
            guard name.hasPrefix(kind.rawValue + "-") else { return nil }
            // KIND-FIRST-LAST.SUFFIX: the last number of the file's records.
            return Int(name.dropFirst(kind.rawValue.count + 1).drop { $0.isNumber }.dropFirst().prefix { $0.isNumber })
        }
    }

    private func preferenceValues(of user: String) -> [String] {
        guard let bytes = files.contents(of: preferencesFile(of: user)) else { return [] }
        return (try? JSONDecoder().decode(PreferencesFile.self, from: bytes))?.values ?? []
    }

    /// The paths of the entries of a folder of the container, sorted; none if it is no folder.
    private func entries(of folder: String) -> [String] {
        (files.entries(of: folder) ?? []).map(\.name).sorted().map { folder + "/" + $0 }
    }
}

/// A user's preferences file: `{"user": NAME, "values": [...]}`.
private struct PreferencesFile: Codable {
    let user: String
    let values: [String]
}
