import DeviceContract

/// When an app's background tasks' expiration handlers ran, as its trace tells it (the
/// `expired` expectation, Docs/scenarios.md).
public enum TaskExpiry {
    /// How long after `app` last entered the background (its latest `background` or `resumed`
    /// line) its expiration handlers ran; nil when they have not run since (or it never did).
    public static func latest(of app: String, in events: [TraceEvent]) -> Duration? {
        let own = events.filter { $0.proc == app }
        guard let entered = own.lastIndex(where: { $0.is(.background) || $0.is(.resumed) }),
            let expired = own[entered...].first(where: { $0.is(.backgroundTasksExpired) })
        else { return nil }
        return .nanoseconds(Int64(expired.t - own[entered].t))
    }
}
