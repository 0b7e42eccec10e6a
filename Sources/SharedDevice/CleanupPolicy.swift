/// The five kinds of record an app writes (SPEC §2.8).
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

    /// What a leak is made of when another user's canary can be read (the others are retained).
    public var leaksWhenReadable: Bool { self == .sensitive || self == .plain || self == .external }
}

/// What an app does with the previous user's data on an account change (SPEC §2.8).
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
    /// The team's own cleanup command.
    case hook(command: String)

    /// The policy a scenario names (`hook:` is given with its command instead).
    public init?(name: String) {
        switch name {
        case "wipe-all": self = .wipeAll
        case "retain-preferences": self = .retainPreferences
        case "cache-common": self = .cacheCommon
        case "external-key": self = .externalKey
        case "keep-all": self = .keepAll
        default: return nil
        }
    }

    public static let names = ["wipe-all", "retain-preferences", "cache-common", "external-key", "keep-all"]

    public var name: String {
        switch self {
        case .wipeAll: "wipe-all"
        case .retainPreferences: "retain-preferences"
        case .cacheCommon: "cache-common"
        case .externalKey: "external-key"
        case .keepAll: "keep-all"
        case .hook: "hook"
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
            return Plan(deletes: all.subtracting([.preferences]), deletesDataKey: true, discardsExternalKey: true,
                        reappliesPreferences: true)
        case .cacheCommon:
            return Plan(deletes: all.subtracting([.common]), deletesDataKey: true, discardsExternalKey: true,
                        reappliesPreferences: false)
        case .externalKey:
            return Plan(deletes: all.subtracting([.external]), deletesDataKey: true, discardsExternalKey: true,
                        reappliesPreferences: false)
        case .keepAll:
            return Plan(deletes: [], deletesDataKey: false, discardsExternalKey: false, reappliesPreferences: false)
        case .hook(let command):
            return Plan(deletes: [], deletesDataKey: false, discardsExternalKey: true, reappliesPreferences: false,
                        hook: command)
        }
    }
}

extension CleanupPolicy.Plan {
    init(deletes: Set<RecordKind>, deletesDataKey: Bool, discardsExternalKey: Bool, reappliesPreferences: Bool) {
        self.init(deletes: deletes, deletesDataKey: deletesDataKey, discardsExternalKey: discardsExternalKey,
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
    public static func all(in text: Substring) -> [Canary] {
        var found: [Canary] = []
        var rest = text[...]
        while let start = rest.firstRange(of: prefix) {
            let tail = rest[start.upperBound...]
            let token = tail.prefix { !$0.isWhitespace && $0 != "\"" && $0 != "," && $0 != "}" }
            let parts = token.split(separator: "/", omittingEmptySubsequences: false)
            if parts.count == 4, let kind = RecordKind(rawValue: String(parts[2])), let number = Int(parts[3]),
               !parts[0].isEmpty, !parts[1].isEmpty {
                found.append(Canary(user: String(parts[0]), app: String(parts[1]), kind: kind, number: number))
            }
            rest = tail
        }
        return found
    }
}
