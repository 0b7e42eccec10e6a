/// SPEC §3: for every session change (t0 = the hub's commit) and every app, when the app's
/// SDK learned of it, when its cleanup was done, by which mechanism, and the exposure window.
public struct SessionChangeTiming: Equatable, Sendable {
    public enum Mechanism: String, Sendable {
        case signal, launch, foreground, poll, none
    }

    public var generation: UInt64
    public var app: String
    /// The hub's commit.
    public var t0: UInt64
    /// When the SDK learned of the change: the post's arrival for `signal`, else the start
    /// of the check that saw it. Nil while it has not.
    public var notified: UInt64?
    /// When the app was clean: its cleanup finished, or the check that found nothing to clean
    /// did. Nil while the app has not checked, or its check failed.
    public var clean: UInt64?
    public var mechanism: Mechanism

    public init(generation: UInt64, app: String, t0: UInt64, notified: UInt64?, clean: UInt64?, mechanism: Mechanism) {
        self.generation = generation
        self.app = app
        self.t0 = t0
        self.notified = notified
        self.clean = clean
        self.mechanism = mechanism
    }

    /// clean − t0, in nanoseconds; nil while still open.
    public var exposure: UInt64? { clean.map { $0 - t0 } }
    public var notifiedAfter: UInt64? { notified.map { $0 - t0 } }

    /// Every (change, app) pair of a merged trace. A check counts for the changes committed
    /// before it started; a later change ends the window of an earlier one the app never saw.
    public static func all(in events: [TraceEvent]) -> [SessionChangeTiming] {
        let changes = events.filter { $0.proc == "hub" && $0.event == "session-changed" }
        let apps = Array(Set(events.filter { $0.proc != "hub" && $0.event == "launched" }.map(\.proc))).sorted()
        return changes.flatMap { change in
            apps.map { app in timing(of: change, for: app, in: events.filter { $0.proc == app && $0.t > change.t }) }
        }
    }

    /// The first check after the change that succeeded tells when the app learned of it.
    private static func timing(of change: TraceEvent, for app: String, in later: [TraceEvent]) -> SessionChangeTiming {
        var timing = SessionChangeTiming(generation: UInt64(change.fields["generation"] ?? "") ?? 0, app: app,
                                         t0: change.t, notified: nil, clean: nil, mechanism: .none)
        var from = later.startIndex
        while let start = later[from...].firstIndex(where: { $0.event == "check-started" }) {
            guard let end = later[start...].firstIndex(where: { $0.event == "check-finished" || $0.event == "check-failed" })
            else { return timing }  // still checking
            from = end + 1
            guard later[end].event == "check-finished" else { continue }
            let check = later[start]
            timing.mechanism = mechanism(of: check.fields["trigger"] ?? "")
            let post = later[..<start].first { $0.event == "post-received" }
            timing.notified = timing.mechanism == .signal ? (post?.t ?? check.t) : check.t
            // The check's cleanup, if it needed one, finishes inside the check.
            timing.clean = later[start..<end].last { $0.event == "cleanup-finished" }?.t ?? later[end].t
            return timing
        }
        return timing
    }

    /// The app's own sign-in or sign-out is the user acting in the foreground app.
    private static func mechanism(of trigger: String) -> Mechanism {
        Mechanism(rawValue: trigger) ?? (trigger == "sign-in" || trigger == "sign-out" ? .foreground : .none)
    }
}
