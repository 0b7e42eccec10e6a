/// The five kinds of record an app writes (Docs/behaviour.md §8).
public enum RecordKind: String, Codable, CaseIterable, Sendable {
    /// Encrypted with a data key in the app's keychain folder.
    case sensitive
    /// User data, unencrypted.
    case plain
    /// Per-user, unencrypted, labelled with the user.
    case preferences
    /// Shared by all users, unencrypted.
    case common
    /// Encrypted with the user's own key from the off-device key service, held in memory only.
    case external

    /// User data: another user's readable canary of these kinds is a leak whatever the cleanup
    /// declares. Of the other kinds, a cleanup may declare it keeps them (`CleanupPolicy.keeps`).
    public var isUserData: Bool { self == .sensitive || self == .plain || self == .external }

    /// The kinds a cleanup may declare it keeps.
    public static let keepable: [RecordKind] = [.preferences, .common]

    /// The most records one write may make: a scenario is checked against it before it runs.
    public static let mostPerWrite = 100_000
}

/// What an app does with the previous user's data on an account change (Docs/behaviour.md §8).
public enum CleanupPolicy: Equatable, Sendable, Codable {
    /// No shared-device support: delete all local data (the default).
    case wipeAll
    /// Delete user data, keep each user's preferences and re-apply them when that user is back.
    case retainPreferences
    /// Delete user data, keep the data common to all users.
    case cacheCommon
    /// Forget the user's in-memory key; keep `external` ciphertext, delete the rest.
    case externalKey
    /// Deliberately broken: ignore account changes.
    case keepAll
    /// The team's own cleanup command, and what it declares it keeps (`preferences`, `common`).
    case hook(command: String, keeps: Set<RecordKind> = [])
    /// The cleanup code of a team's own app, and what it declares it keeps.
    case own(keeps: Set<RecordKind> = [])

    /// The policy a scenario names (`hook:` is given with its command instead).
    public init?(name: String) {
        switch name {
        case "wipe-all": self = .wipeAll
        case "retain-preferences": self = .retainPreferences
        case "cache-common": self = .cacheCommon
        case "external-key": self = .externalKey
        case "keep-all": self = .keepAll
        case "own": self = .own()
        default: return nil
        }
    }

    /// The built-in policies (`own` is named too, but only an app with cleanup code of its own has it).
    public static let names = ["wipe-all", "retain-preferences", "cache-common", "external-key", "keep-all"]

    public var name: String {
        switch self {
        case .wipeAll: "wipe-all"
        case .retainPreferences: "retain-preferences"
        case .cacheCommon: "cache-common"
        case .externalKey: "external-key"
        case .keepAll: "keep-all"
        case .hook: "hook"
        case .own: "own"
        }
    }

    /// Of the kinds a cleanup may keep (`RecordKind.keepable`), those it keeps by declaration:
    /// a built-in policy what its name says (`keep-all` declares nothing: it is broken, not
    /// keeping), a hook or an app's own code what the scenario declares.
    public var keeps: Set<RecordKind> {
        switch self {
        case .retainPreferences: [.preferences]
        case .cacheCommon: [.common]
        case .hook(_, let keeps), .own(let keeps): keeps
        case .wipeAll, .externalKey, .keepAll: []
        }
    }

    /// Whether another user's readable canary of `kind` is a leak after this cleanup
    /// (Docs/behaviour.md §8); if not, it is retained.
    public func leaks(_ kind: RecordKind) -> Bool { kind.isUserData || !keeps.contains(kind) }

    /// What cleanup the app runs, for a person: `wipe-all`, `hook ./clean.sh (keeps common)`.
    public var description: String {
        let kept =
            keeps.isEmpty
            ? "" : " (keeps \(RecordKind.keepable.filter(keeps.contains).map(\.rawValue).joined(separator: ", ")))"
        switch self {
        case .hook(let command, _): return "hook \(command)" + kept
        case .own: return "the app's own code" + kept
        default: return name
        }
    }

    /// What to do, as the app carries it out.
    public struct Plan: Equatable, Sendable {
        /// Record kinds to delete. Each policy keeps exactly what its name says.
        public var deletes: Set<RecordKind>
        /// Delete the app's own data key (MSAL apps; the Workspace ONE SDK deletes its key itself).
        public var deletesDataKey: Bool
        /// Forget the in-memory key of `external` records.
        public var discardsExternalKey: Bool
        /// Re-apply the preferences of a user who comes back.
        public var reappliesPreferences: Bool
        /// The command to run instead, with the documented environment.
        public var hook: String?
    }

    public var plan: Plan {
        let all = Set(RecordKind.allCases)
        switch self {
        case .wipeAll:
            return Plan(deletes: all, deletesDataKey: true, discardsExternalKey: true, reappliesPreferences: false)
        case .retainPreferences:
            return Plan(
                deletes: all.subtracting([.preferences]), deletesDataKey: true, discardsExternalKey: true,
                reappliesPreferences: true)
        case .cacheCommon:
            return Plan(
                deletes: all.subtracting([.common]), deletesDataKey: true, discardsExternalKey: true,
                reappliesPreferences: false)
        case .externalKey:
            return Plan(
                deletes: all.subtracting([.external]), deletesDataKey: true, discardsExternalKey: true,
                reappliesPreferences: false)
        case .keepAll:
            return Plan(deletes: [], deletesDataKey: false, discardsExternalKey: false, reappliesPreferences: false)
        case .hook(let command, _):
            return Plan(
                deletes: [], deletesDataKey: false, discardsExternalKey: true, reappliesPreferences: false,
                hook: command)
        case .own:
            return Plan(deletes: [], deletesDataKey: false, discardsExternalKey: true, reappliesPreferences: false)
        }
    }
}

extension CleanupPolicy.Plan {
    init(deletes: Set<RecordKind>, deletesDataKey: Bool, discardsExternalKey: Bool, reappliesPreferences: Bool) {
        self.init(
            deletes: deletes, deletesDataKey: deletesDataKey, discardsExternalKey: discardsExternalKey,
            reappliesPreferences: reappliesPreferences, hook: nil)
    }
}

/// The canary every stored value carries: `SDLAB-CANARY/<user>/<app>/<kind>/<n>`.
public struct Canary: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var user: String
    public var app: String
    public var kind: RecordKind
    public var number: Int

    public init(user: String, app: String, kind: RecordKind, number: Int) {
        self.user = user
        self.app = app
        self.kind = kind
        self.number = number
    }

    public static let prefix = "SDLAB-CANARY/"

    public var description: String { "\(Self.prefix)\(user)/\(app)/\(kind.rawValue)/\(number)" }

    /// Every canary in a text (a decrypted value, a file read as text).
    public static func all(in text: Substring) -> [Canary] { all(inUTF8: Array(text.utf8)) }

    /// Every canary in UTF-8 bytes: a byte search for the prefix, then the token after it, up
    /// to the first byte that cannot be part of one, so that a canary followed by binary data (a
    /// database row, a binary plist) still reads, and whatever follows its number (a path in a
    /// URL: `…/plain/1/edit`) is not part of it. (Written over raw bytes: an app showing a
    /// million records reads them all back for each snapshot.)
    public static func all(inUTF8 bytes: [UInt8]) -> [Canary] {
        let marker = Array(prefix.utf8)
        return bytes.withUnsafeBufferPointer { bytes in
            var found: [Canary] = []
            var index = 0
            while let start = firstIndex(of: marker, in: bytes, from: index) {
                let tokenStart = start + marker.count
                var end = tokenStart
                while end < bytes.count, !Self.ends(bytes[end]) { end += 1 }
                if let canary = Canary(token: UnsafeBufferPointer(rebasing: bytes[tokenStart..<end])) {
                    found.append(canary)
                }
                index = tokenStart
            }
            return found
        }
    }

    /// Every canary a file or folder name spells. A name cannot hold a `/`, so an app that makes a
    /// record a name writes each `/` of it as another character (`:`, as Apple's file systems show
    /// a `/`; `_`, `-`, a space…): the character right after `SDLAB-CANARY` is read as the one that
    /// stands for `/` there. The kind and the number are read from the right, so a user name that
    /// holds that character still reads; where the app's name may hold it too, the split that
    /// gives `app` (the container's) is taken.
    public static func all(inName name: [UInt8], app: String? = nil) -> [Canary] {
        let stem = Array(prefix.utf8.dropLast())
        var found: [Canary] = []
        var index = 0
        while index + stem.count < name.count {
            guard name[index..<index + stem.count].elementsEqual(stem) else {
                index += 1
                continue
            }
            index += stem.count
            let separator = Array(name[index..<min(name.count, index + scalarLength(name[index]))])
            index += separator.count
            guard separator != [UInt8(ascii: "/")] else { continue }
            var fields: [[UInt8]] = [[]]
            while index < name.count {
                if name[index...].starts(with: separator) {
                    fields.append([])
                    index += separator.count
                } else if !ends(name[index]) {
                    fields[fields.count - 1].append(name[index])
                    index += 1
                } else {
                    break
                }
            }
            let texts = fields.map { String(decoding: $0, as: UTF8.self) }
            if let canary = named(texts, String(decoding: separator, as: UTF8.self), app: app) {
                found.append(canary)
            }
        }
        return found
    }

    /// How many bytes the UTF-8 scalar that `lead` starts holds.
    private static func scalarLength(_ lead: UInt8) -> Int {
        switch lead {
        case 0xF0...: 4
        case 0xE0...: 3
        case 0xC0...: 2
        default: 1
        }
    }

    /// `USER…, APP…, KIND, N…`: the first kind that a number follows; before it the app (`app`
    /// where the fields end with it, else the one field) and the user all before that.
    private static func named(_ fields: [String], _ separator: String, app: String?) -> Canary? {
        for index in fields.indices.dropFirst(2) where index + 1 < fields.count {
            guard let kind = RecordKind(rawValue: fields[index]) else { continue }
            let digits = fields[index + 1].prefix { ("0"..."9").contains($0) }
            guard (1...18).contains(digits.count), let number = Int(digits) else { continue }
            let appStart =
                (1..<index).first { fields[$0..<index].joined(separator: separator) == app } ?? index - 1
            let user = fields[..<appStart].joined(separator: separator)
            let appName = fields[appStart..<index].joined(separator: separator)
            return Canary(user: user, app: appName, kind: kind, number: number)
        }
        return nil
    }

    /// Anything but what user and app names, kinds and numbers are made of: ASCII letters,
    /// digits, `_`, `-`, `.` and the `/` between them.
    private static func ends(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "/"):
            false
        default: true
        }
    }

    /// `USER/APP/KIND/N`, N in decimal digits: the digits the token's fourth part starts with,
    /// as a letter stored right after a canary (the next column of a database row, the next
    /// object of a binary plist) is part of the token but not of the number, and so is the rest
    /// of a path the canary is one step of.
    private init?(token: UnsafeBufferPointer<UInt8>) {
        var slashes: [Int] = []
        for index in token.indices where token[index] == UInt8(ascii: "/") {
            slashes.append(index)
            if slashes.count == 3 { break }
        }
        guard slashes.count == 3, slashes[0] > 0, slashes[1] > slashes[0] + 1 else { return nil }
        func text(_ range: Range<Int>) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: token[range]), as: UTF8.self)
        }
        guard let kind = RecordKind(rawValue: text(slashes[1] + 1..<slashes[2])),
            let number = Self.decimal(Self.leadingDigits(UnsafeBufferPointer(rebasing: token[(slashes[2] + 1)...])))
        else { return nil }
        self.init(user: text(0..<slashes[0]), app: text(slashes[0] + 1..<slashes[1]), kind: kind, number: number)
    }

    private static func leadingDigits(_ text: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: text.prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
    }

    /// A number in 1 to 18 decimal digits (no sign), or nil.
    public static func decimal(_ digits: UnsafeBufferPointer<UInt8>) -> Int? {
        guard (1...18).contains(digits.count) else { return nil }
        var value = 0
        for digit in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
            value = value * 10 + Int(digit - UInt8(ascii: "0"))
        }
        return value
    }

    private static func firstIndex(of marker: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let first = marker.first, bytes.count >= marker.count else { return nil }
        var index = start
        while index <= bytes.count - marker.count {
            if bytes[index] == first {
                var matched = 1
                while matched < marker.count, bytes[index + matched] == marker[matched] { matched += 1 }
                if matched == marker.count { return index }
            }
            index += 1
        }
        return nil
    }
}
