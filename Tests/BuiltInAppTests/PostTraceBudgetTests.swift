import Testing

@testable import DeviceHost

/// How many posts an app traces one by one (`PostTraceBudget`).
@Suite struct PostTraceBudgetTests {
    static let second: UInt64 = 1_000_000_000

    @Test func aBurstIsTracedThenPostsAreCountedAndToldWhenLinesComeBack() {
        var budget = PostTraceBudget(perSecond: 10, burst: 20)
        let burst = (0..<25).map { _ in budget.admit(at: 0).traced }
        #expect(burst.filter { $0 }.count == 20 && budget.untraced == 5)
        let later = budget.admit(at: Self.second / 10)  // a tenth of a second: one line back
        #expect(later.traced && later.untracedBefore == 5 && budget.untraced == 0)
    }

    @Test func postsAtTheRateAreAllTraced() {
        var budget = PostTraceBudget(perSecond: 10, burst: 20)
        let steady = (0..<200).map { budget.admit(at: UInt64($0) * Self.second / 10).traced }
        #expect(steady.allSatisfy { $0 })
    }

    @Test func zeroTracesEveryPost() {
        var budget = PostTraceBudget(perSecond: 0, burst: 0)
        #expect((0..<10_000).allSatisfy { _ in budget.admit(at: 0).traced })
    }

    @Test func theCountCanBeToldAtTheEndOfACheck() {
        var budget = PostTraceBudget(perSecond: 1, burst: 2)
        for _ in 0..<5 { _ = budget.admit(at: 0) }
        #expect(budget.takeUntraced() == 3 && budget.takeUntraced() == 0)
    }
}
