import Scenario
import Testing

@Suite struct TagTests {
    @Test func tagsAreAListOrOneName() throws {
        #expect(parsed("name: a\ntags: [fleet, slow-2, v1.0]\n")?.tags == ["fleet", "slow-2", "v1.0"])
        #expect(parsed("name: a\ntags: fleet\n")?.tags == ["fleet"])
        #expect(parsed("name: a\n")?.tags == [])
    }

    @Test(arguments: [
        ("tags: [fleet, fleet]\n", "s.yaml:1:15: duplicate tag fleet"),
        ("tags: [-x]\n", "s.yaml:1:8: tag: expected a tag name of letters, digits, '.', '_' or '-'"),
        ("tags: [a b]\n", "s.yaml:1:8: tag: expected a tag name"),
        ("tags: {a: 1}\n", "s.yaml:1:7: tag: expected a tag name"),
    ])
    func aBadTagIsAProblemWhereItIsWritten(text: String, expected: String) {
        let found = problems(text)
        #expect(found.count == 1 && found.first?.hasPrefix(expected) == true, "\(found)")
    }

    @Test func theWriterKeepsTags() throws {
        let scenario = try #require(parsed("name: a\ntags: [fleet, \"yes\"]\n"))
        #expect(scenario.yaml.contains("tags: [fleet, \"yes\"]"))
        #expect(try Scenario.parse(scenario.yaml, file: "s.yaml").tags == ["fleet", "yes"])
    }
}

@Suite struct SelectionTests {
    static func scenario(_ name: String, file: String? = nil, tags: [String] = []) -> Scenario {
        Scenario(
            name: name, file: file ?? "Scenarios/\(name).yaml", device: Device(), users: [], apps: [], steps: [],
            tags: tags)
    }

    static let suite = (1...10).map { scenario("s\($0)", tags: $0 % 2 == 0 ? ["even"] : ["odd"]) }

    @Test func withNothingChosenEveryScenarioRunsInOrder() {
        #expect(ScenarioSelection().apply(Self.suite).map(\.name) == Self.suite.map(\.name))
    }

    @Test func aFilterMatchesTheNameOrTheFileInAnyCase() {
        let scenarios = [
            Self.scenario("Fleet check-in", file: "a.yaml"), Self.scenario("other", file: "Scenarios/fleet-b.yaml"),
            Self.scenario("neither", file: "c.yaml"),
        ]
        #expect(ScenarioSelection(filters: ["FLEET"]).apply(scenarios).map(\.name) == ["Fleet check-in", "other"])
        #expect(ScenarioSelection(filters: ["c.yaml", "Check-in"]).apply(scenarios).count == 2)
    }

    @Test func tagsChooseAnyOfThemAndSkippedTagsWin() {
        #expect(ScenarioSelection(tags: ["even"]).apply(Self.suite).map(\.name) == ["s2", "s4", "s6", "s8", "s10"])
        #expect(ScenarioSelection(tags: ["even", "odd"]).apply(Self.suite).count == 10)
        #expect(ScenarioSelection(tags: ["even"], skippedTags: ["even"]).apply(Self.suite).isEmpty)
        #expect(ScenarioSelection(skippedTags: ["odd"]).apply(Self.suite).count == 5)
    }

    @Test(arguments: 1...12)
    func shardsAreDisjointCoverTheWholeAndDifferByOneAtMost(count: Int) throws {
        let shards = try (1...count).map { index in
            let shard: Shard = try #require(Shard(index: index, count: count))
            return ScenarioSelection(shard: shard).apply(Self.suite).map(\.name)
        }
        #expect(shards.flatMap { $0 }.sorted() == Self.suite.map(\.name).sorted())
        #expect(Set(shards.flatMap { $0 }).count == Self.suite.count)
        #expect((shards.map(\.count).max() ?? 0) - (shards.map(\.count).min() ?? 0) <= 1)
    }

    @Test func aShardIsTakenFromTheMatchingScenarios() throws {
        let shard: Shard = try #require(Shard("2/2"))
        let selection = ScenarioSelection(tags: ["even"], shard: shard)
        #expect(selection.apply(Self.suite).map(\.name) == ["s4", "s8"])
    }

    @Test(arguments: ["1/1", "2/3", "3/3", "10/12"])
    func aShardIsKOfN(text: String) throws {
        #expect(try #require(Shard(text)).description == text)
    }

    @Test(arguments: ["0/3", "4/3", "1/0", "1", "a/b", "1/2/3", "/2", "-1/2", ""])
    func anythingElseIsNoShard(text: String) {
        #expect(Shard(text) == nil)
    }
}
