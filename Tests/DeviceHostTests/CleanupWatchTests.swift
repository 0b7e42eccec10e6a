import SharedDevice
import Testing

@testable import DeviceHost

/// How the host watches a team's app's change: polls back off to a second, a failure is told
/// once per change, and a scan of an older change neither ends nor fails the watch.
@Suite struct CleanupWatchTests {
    static let first = CleanupJob(previousUser: "cou1", currentUser: nil, reason: .check(.signal), policy: .own())
    static let second = CleanupJob(previousUser: "cou2", currentUser: nil, reason: .check(.foreground), policy: .own())

    @Test func pollsBackOffToASecondOneAtATime() {
        var watch = CleanupWatch()
        let unwatched = watch.schedulePoll()
        #expect(unwatched == nil, "nothing is watched")
        watch.start(Self.first)
        var delays: [Duration] = []
        for _ in 0..<10 {
            guard let delay = watch.schedulePoll() else { break }
            let meanwhile = watch.schedulePoll()
            #expect(meanwhile == nil, "one poll at a time")
            delays.append(delay)
            watch.pollRan()
        }
        #expect(delays.prefix(4) == [.milliseconds(5), .milliseconds(10), .milliseconds(20), .milliseconds(40)])
        #expect(delays.last == .seconds(1) && delays.allSatisfy { $0 <= .seconds(1) })
        watch.start(Self.second)
        watch.pollRan()
        let again = watch.schedulePoll()
        #expect(again == .milliseconds(5), "a new change starts over")
    }

    @Test func aFailureIsToldOncePerChange() {
        var watch = CleanupWatch()
        watch.start(Self.first)
        let told = [watch.tellFailure(of: Self.first), watch.tellFailure(of: Self.first)]
        watch.start(Self.second)
        let after = [watch.tellFailure(of: Self.first), watch.tellFailure(of: Self.second)]
        #expect(told == [true, false], "once per change")
        #expect(after == [false, true], "the first is no longer watched")
    }

    @Test func onlyTheWatchedChangeEndsIt() {
        var watch = CleanupWatch()
        watch.start(Self.second)
        let closedByTheFirst = watch.close(Self.first)
        #expect(!closedByTheFirst && watch.job == Self.second)
        let closedByTheSecond = watch.close(Self.second)
        #expect(closedByTheSecond && watch.job == nil)
        let poll = watch.schedulePoll()
        #expect(poll == nil)
    }
}
