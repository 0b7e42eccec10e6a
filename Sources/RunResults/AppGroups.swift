import DeviceContract

/// Apps gathered under keys (a failure, an open pair, a row of a table): keys in the order
/// first seen, each key's apps in the order added, so that apps alike are said once.
public struct AppGroups<Key: Hashable> {
    private var keys: [Key] = []
    private var apps: [Key: [String]] = [:]

    public init() {}

    public mutating func add(_ app: String, under key: Key) {
        if apps[key] == nil { keys.append(key) }
        apps[key, default: []].append(app)
    }

    public var groups: [(key: Key, apps: [String])] { keys.map { ($0, apps[$0]!) } }
}

/// App names as a person reads a list of them.
public enum AppNames {
    /// `mail`, or `fleet1–fleet20 (20 apps)`.
    public static func who(_ names: [String]) -> String {
        names.count == 1 ? names[0] : "\(listed(names)) (\(names.count) apps)"
    }

    /// `fleet1–fleet5, fleet7, mail`: runs of a name with consecutive numbers written as one range.
    public static func listed(_ names: [String]) -> String {
        NumberedRuns.of(names, numbered: numbered).map { piece in
            switch piece {
            case .unnumbered(let name): name
            case .run(let stem, let first, let last) where first == last: "\(stem)\(first)"
            case .run(let stem, let first, let last): "\(stem)\(first)–\(stem)\(last)"
            }
        }.joined(separator: ", ")
    }

    /// `fleet12` is (`fleet`, 12); a name without a number at its end is nil.
    private static func numbered(_ name: String) -> (stem: String, number: Int)? {
        let digits = name.reversed().prefix { $0.isNumber }
        guard !digits.isEmpty, digits.count < name.count, let number = Int(String(digits.reversed())) else {
            return nil
        }
        return (String(name.dropLast(digits.count)), number)
    }
}
