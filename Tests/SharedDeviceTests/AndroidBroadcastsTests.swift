import SharedDevice
import Testing

/// Docs/behaviour.md §7: context-registered broadcasts to a cached Android app are queued, merged
/// per action, and delivered when it leaves the cached state.
@Suite struct AndroidBroadcastsTests {
    enum Event: Sendable {
        case arrive(String, action: String)
        case enter, leave
    }

    static let changed = AndroidBroker.accountChangedAction

    /// What was delivered, at once or on leaving the cache, in order.
    static func delivered(_ events: [Event]) -> [String] {
        var broadcasts = AndroidBroadcasts<String>()
        var out: [String] = []
        for event in events {
            switch event {
            case .arrive(let name, let action): if let now = broadcasts.arrive(name, action: action) { out.append(now) }
            case .enter: broadcasts.enterCache()
            case .leave: out += broadcasts.leaveCache()
            }
        }
        return out
    }

    @Test(arguments: [
        // Not cached: each at once.
        ([Event.arrive("b1", action: changed), .arrive("b2", action: changed)], ["b1", "b2"]),
        // Cached: nothing until it leaves the cache; then the latest of the action, once.
        ([.enter, .arrive("b1", action: changed), .arrive("b2", action: changed)], []),
        ([.enter, .arrive("b1", action: changed), .arrive("b2", action: changed), .leave], ["b2"]),
        // Actions are merged apart, in the order each was first queued.
        (
            [.enter, .arrive("a1", action: "a"), .arrive("c1", action: changed), .arrive("a2", action: "a"), .leave],
            ["a2", "c1"]
        ),
        // Left, it gets each at once again; cached again, it queues again.
        ([.enter, .leave, .arrive("b1", action: changed), .enter, .arrive("b2", action: changed)], ["b1"]),
        // Nothing queued: leaving delivers nothing.
        ([.enter, .leave], []),
    ])
    func delivery(events: [Event], delivered: [String]) {
        #expect(Self.delivered(events) == delivered)
    }

    @Test(arguments: [
        (SDKKind.msalAndroid, false, true), (.msalAndroid, true, false), (.msal, false, false), (.ws1, false, false),
    ])
    func onlyAnAndroidAppWithoutAForegroundServiceIsCached(sdk: SDKKind, backgroundMode: Bool, cached: Bool) {
        #expect(sdk.isCachedInTheBackground(backgroundMode: backgroundMode) == cached)
    }
}
