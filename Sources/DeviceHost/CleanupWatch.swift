import Foundation
import SharedDevice

/// A team's app's change whose data the host watches go: the app may finish its cleanup on a
/// thread of its own, so the host looks after each piece of the app's code and on a timer that
/// backs off, until a scan finds it clean. Its failure is told once. A value: the host holds it
/// under its lock, and tests drive it alone.
struct CleanupWatch: Equatable {
    static let firstPoll = Duration.milliseconds(5)
    static let longestPoll = Duration.seconds(1)

    /// The change watched, until a scan finds it clean.
    private(set) var job: CleanupJob?
    private(set) var failureTold = false
    private var pollDelay = Self.firstPoll
    private var pollScheduled = false

    /// Watches `job` from now, in place of any change watched before.
    mutating func start(_ job: CleanupJob) {
        self.job = job
        failureTold = false
        pollDelay = Self.firstPoll
    }

    /// A scan found `job` clean: the watch ends, if it still watches that change.
    mutating func close(_ job: CleanupJob) -> Bool {
        guard self.job == job else { return false }
        self.job = nil
        return true
    }

    /// Whether `job`'s failure is to be told now: once per change, while it is watched.
    mutating func tellFailure(of job: CleanupJob) -> Bool {
        guard self.job == job, !failureTold else { return false }
        failureTold = true
        return true
    }

    /// The delay of the next poll, twice the last one up to a second; nil while one is due or
    /// nothing is watched.
    mutating func schedulePoll() -> Duration? {
        guard job != nil, !pollScheduled else { return nil }
        pollScheduled = true
        defer { pollDelay = min(pollDelay * 2, Self.longestPoll) }
        return pollDelay
    }

    /// The poll scheduled is running.
    mutating func pollRan() { pollScheduled = false }
}
