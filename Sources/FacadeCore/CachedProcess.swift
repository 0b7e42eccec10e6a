import SharedDevice
import Synchronization

/// This process's place in Android's cached state, as the system side of an Android app keeps it
/// (`AndroidBroadcasts`): the host says when the app enters and leaves the cached state; a
/// context-registered receiver's broadcast goes through `arrive`, which delivers it at once or
/// keeps it for then (Docs/behaviour.md §7). An iOS app is never cached.
public final class CachedProcess: Sendable {
    private let broadcasts = Mutex(AndroidBroadcasts<@Sendable () -> Void>())

    public init() {}

    /// A broadcast of `action` arrived; `deliver` runs now, or when the app leaves the cached
    /// state (only the latest of each action then). Returns whether it ran now.
    @discardableResult
    public func arrive(_ action: String, deliver: @escaping @Sendable () -> Void) -> Bool {
        guard let now = broadcasts.withLock({ $0.arrive(deliver, action: action) }) else { return false }
        now()
        return true
    }

    /// The app went to the background with no foreground service: broadcasts wait from now on.
    public func enter() { broadcasts.withLock { $0.enterCache() } }

    /// The app returned to the foreground, or the system woke it for an event: what waited is
    /// delivered, one per action, in order. Returns how many were.
    @discardableResult
    public func leave() -> Int {
        let waiting = broadcasts.withLock { $0.leaveCache() }
        for deliver in waiting { deliver() }
        return waiting.count
    }
}
