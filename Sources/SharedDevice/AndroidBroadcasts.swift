/// What Android does with the broadcasts a context-registered receiver is sent (Docs/behaviour.md
/// §7): a process that is not cached gets each at once; while it is cached (in the background,
/// with no foreground service) they are queued, and when it leaves the cached state (it returns
/// to the foreground, or the system wakes it for an event) the queue is delivered, the
/// broadcasts of one action merged into one. `Broadcast` is whatever delivers one.
public struct AndroidBroadcasts<Broadcast> {
    public private(set) var cached = false
    /// Per action, in the order each was first queued: the latest broadcast of that action.
    private var queued: [(action: String, broadcast: Broadcast)] = []

    public init() {}

    /// A broadcast of `action` arrives: handed back to deliver now, or nil when it is queued.
    public mutating func arrive(_ broadcast: Broadcast, action: String) -> Broadcast? {
        guard cached else { return broadcast }
        if let index = queued.firstIndex(where: { $0.action == action }) {
            queued[index].broadcast = broadcast
        } else {
            queued.append((action, broadcast))
        }
        return nil
    }

    /// The process became cached: broadcasts wait from now on.
    public mutating func enterCache() { cached = true }

    /// The process left the cached state: what waited, one per action, to deliver in order.
    public mutating func leaveCache() -> [Broadcast] {
        cached = false
        defer { queued = [] }
        return queued.map(\.broadcast)
    }

    /// How many broadcasts wait (one per action).
    public var waiting: Int { queued.count }
}

extension AndroidBroadcasts: Sendable where Broadcast: Sendable {}

extension SDKKind {
    /// Whether an app of this SDK is cached in the background, its broadcasts held: an Android
    /// app without a foreground service (`backgroundMode`). An iOS app never is.
    public func isCachedInTheBackground(backgroundMode: Bool) -> Bool { isAndroid && !backgroundMode }
}
