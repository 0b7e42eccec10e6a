import SharedDevice

/// Whose data of which kinds an app holds, as `cou1/plain,cou2/common` in its trace: what it
/// wrote since, and what the scan after each cleanup found. The runner replays it to know, at
/// each session change, whether the app held another user's data.
public struct Holdings: Equatable, Sendable, CustomStringConvertible {
    public struct Item: Hashable, Sendable, Comparable {
        public var user: String
        public var kind: RecordKind

        public init(user: String, kind: RecordKind) {
            self.user = user
            self.kind = kind
        }

        public static func < (a: Item, b: Item) -> Bool { (a.user, a.kind.rawValue) < (b.user, b.kind.rawValue) }
    }

    public var items: Set<Item>

    public init(_ items: Set<Item> = []) { self.items = items }

    /// What a scan read.
    public init(_ findings: some Collection<LeakScanner.Finding>) {
        items = Set(findings.map { Item(user: $0.canary.user, kind: $0.canary.kind) })
    }

    /// The trace's text; items that do not parse are skipped (user names hold no `/` or `,`).
    public init(text: String) {
        items = Set(
            text.split(separator: ",").compactMap { item in
                let parts = item.split(separator: "/")
                guard parts.count == 2, let kind = RecordKind(rawValue: String(parts[1])) else { return nil }
                return Item(user: String(parts[0]), kind: kind)
            })
    }

    public var description: String { items.sorted().map { "\($0.user)/\($0.kind.rawValue)" }.joined(separator: ",") }

    /// Another user's data that `cleanup` does not declare it keeps, with `current` the user now.
    public func exposed(to current: String?, under cleanup: CleanupPolicy) -> Holdings {
        Holdings(items.filter { $0.user != current && cleanup.leaks($0.kind) })
    }

    public var users: Set<String> { Set(items.map(\.user)) }
    public var isEmpty: Bool { items.isEmpty }
}
