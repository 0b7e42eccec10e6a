import Foundation

/// Which scenarios a run takes (`sdlab run --filter --tag --skip-tag --shard`): those that
/// match, then this machine's shard of them.
public struct ScenarioSelection: Sendable, Equatable {
    /// Texts of which the scenario's name or file must contain one (any case); none: every scenario.
    public var filters: [String] = []
    /// Tags of which the scenario must carry one; none: every scenario.
    public var tags: [String] = []
    /// Tags that leave a scenario out, whatever else it carries.
    public var skippedTags: [String] = []
    public var shard: Shard?

    public init(filters: [String] = [], tags: [String] = [], skippedTags: [String] = [], shard: Shard? = nil) {
        self.filters = filters
        self.tags = tags
        self.skippedTags = skippedTags
        self.shard = shard
    }

    /// Whether `scenario` passes the filters and tags (the shard aside).
    public func matches(_ scenario: Scenario) -> Bool {
        let matchesFilter =
            filters.isEmpty
            || filters.contains { filter in
                [scenario.name, scenario.file].contains { $0.lowercased().contains(filter.lowercased()) }
            }
        return matchesFilter && (tags.isEmpty || !Set(tags).isDisjoint(with: scenario.tags))
            && Set(skippedTags).isDisjoint(with: scenario.tags)
    }

    /// The scenarios that match, in the order given, then only this shard's of them.
    public func apply(_ scenarios: [Scenario]) -> [Scenario] {
        let matching = scenarios.filter(matches)
        guard let shard else { return matching }
        return matching.enumerated().filter { shard.holds($0.offset) }.map(\.element)
    }
}

/// Shard K of N (`--shard K/N`): the scenarios that match are dealt out in order, the first
/// to shard 1, the second to shard 2, …, so that the N shards are disjoint, together make the
/// whole set, and differ in size by one at most. The same files give every machine the same
/// shards.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// 1-based.
    public let index: Int
    public let count: Int

    public init?(index: Int, count: Int) {
        guard count >= 1, (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// `K/N` with 1 ≤ K ≤ N.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else { return nil }
        self.init(index: index, count: count)
    }

    /// Whether the scenario at `position` (0-based, among those that match) is this shard's.
    public func holds(_ position: Int) -> Bool { position % count == index - 1 }

    public var description: String { "\(index)/\(count)" }
}
