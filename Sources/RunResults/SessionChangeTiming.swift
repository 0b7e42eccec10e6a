import DeviceContract
import LeakScan
import SharedDevice

/// Docs/behaviour.md §9: for every session change (t0 = the hub's commit) and every app, when the app's
/// SDK learned of it and by which mechanism; and, when the app held another user's data at
/// t0, when that data stopped being readable (clean) and the exposure window.
public struct SessionChangeTiming: Equatable, Sendable {
    public var generation: UInt64
    public var app: String
    /// The hub's commit.
    public var t0: UInt64
    /// Who the device's user became (nil: none).
    public var newUser: String?
    /// When the SDK learned of the change: the post's arrival for `signal`, else the start
    /// of the check that saw it. Nil while it has not.
    public var notified: UInt64?
    public var mechanism: Mechanism
    /// Other users' data the app held at t0 that its cleanup does not declare it keeps. Empty:
    /// nothing was exposed, and the pair has no exposure window.
    public var held: Holdings
    /// When none of the held data was readable any more: a cleanup that finished, whose scan read
    /// the whole container and found none of it (a scan that could not read everything ends in
    /// `cleanup-failed` and closes nothing), or a later change that made its owner the device's
    /// user again. Nil while open (or when nothing was held).
    public var clean: UInt64?
    /// Why a pair that held data is still open; nil when clean or nothing was held.
    public var openReason: String?

    public init(
        generation: UInt64, app: String, t0: UInt64, newUser: String? = nil, notified: UInt64?,
        mechanism: Mechanism, held: Holdings = Holdings(), clean: UInt64? = nil, openReason: String? = nil
    ) {
        self.generation = generation
        self.app = app
        self.t0 = t0
        self.newUser = newUser
        self.notified = notified
        self.mechanism = mechanism
        self.held = held
        self.clean = clean
        self.openReason = openReason
    }

    /// The app held another user's data at the commit.
    public var exposed: Bool { !held.isEmpty }
    /// clean − t0, in nanoseconds; nil while open or when nothing was exposed.
    public var exposure: UInt64? { clean.map { $0 - min($0, t0) } }
    public var isOpen: Bool { exposed && clean == nil }
    public var notifiedAfter: UInt64? { notified.map { $0 - t0 } }

    /// Every (change, app) pair of a merged trace; `cleanups` is each app's declared cleanup
    /// (what it keeps is not exposure). A check counts for the changes committed before it
    /// started; a later change ends the window of an earlier one the app never saw.
    ///
    /// A session change is the worker's: it opens a window for every app that holds another
    /// user's data. With Authenticator as MSAL's broker, an MSAL app is never told of one (its
    /// window stays open until it cleans up for another reason), and MSAL's own account changes
    /// (`account-changed`) are pairs of the MSAL apps alone, timing how they learn of them, with
    /// no window of their own.
    public static func all(in events: [TraceEvent], cleanups: [String: CleanupPolicy]) -> [SessionChangeTiming] {
        let hub = events.filter { $0.proc == "hub" }
        let changes = hub.filter { $0.is(.sessionChanged) || $0.is(.accountChanged) }
        let setup = hub.last { $0.is(.ready) }.flatMap { $0[.broker] }.flatMap(BrokerSetup.init) ?? .hub
        let launches = events.filter { $0.proc != "hub" && $0.is(.launched) }
        let sdks = Dictionary(launches.map { ($0.proc, $0[.sdk].flatMap(SDKKind.init)) }) { _, last in last }
        return sdks.keys.sorted().flatMap { app in
            let own = events.filter { $0.proc == app }
            let held = HeldData(of: own, cleanup: cleanups[app] ?? .wipeAll)
            let followsAccount = sdks[app]??.followsMSALAccountAlone(under: setup) ?? false
            return changes.indices.compactMap { index -> SessionChangeTiming? in
                let change = changes[index]
                let ofTheWorker = change.is(.sessionChanged)
                guard ofTheWorker || followsAccount else { return nil }
                // Events are in time order: what follows the change is a slice, found by halving.
                let after = own[own.partitionPoint { $0.t <= change.t }...]
                let told = ofTheWorker != followsAccount
                var timing = told ? learning(of: change, by: app, in: after) : untold(change, app)
                guard ofTheWorker else { return timing }
                timing.held = held.exposed(at: change.t, to: timing.newUser)
                let laterChanges = changes[(index + 1)...].filter { $0.is(.sessionChanged) }
                if timing.exposed { close(&timing, with: after, laterChanges: laterChanges[...]) }
                if !told, timing.isOpen {
                    timing.openReason =
                        "an MSAL app is not told of a Hub check-in or check-out when Authenticator is the broker: "
                        + "only an MSAL sign-out makes it clean up"
                }
                return timing
            }
        }
    }

    /// A worker's change an MSAL app is never told of (Authenticator as broker).
    private static func untold(_ change: TraceEvent, _ app: String) -> SessionChangeTiming {
        SessionChangeTiming(
            generation: change.integer(.generation) ?? 0, app: app, t0: change.t, newUser: change.user(),
            notified: nil, mechanism: .none)
    }

    /// The first check after the change that the SDK made and that succeeded tells when the
    /// app learned of it (a blocked Workspace ONE app's foreground is no opportunity).
    private static func learning(of change: TraceEvent, by app: String, in later: ArraySlice<TraceEvent>)
        -> SessionChangeTiming
    {
        let user = change.user()
        var timing = SessionChangeTiming(
            generation: change.integer(.generation) ?? 0, app: app,
            t0: change.t, newUser: user, notified: nil, mechanism: .none)
        var from = later.startIndex
        while let start = later[from...].firstIndex(where: { $0.is(.checkStarted) }) {
            guard let end = later[start...].firstIndex(where: { $0.is(.checkFinished) || $0.is(.checkFailed) })
            else { return timing }  // still checking
            from = end + 1
            guard later[end].is(.checkFinished), later[end].bool(.opportunity) != false else { continue }
            let check = later[start]
            timing.mechanism = mechanism(of: check[.trigger] ?? "")
            let post = later[..<start].first { $0.is(.postReceived) }
            timing.notified = timing.mechanism == .signal ? (post?.t ?? check.t) : check.t
            return timing
        }
        return timing
    }

    /// Closes an exposed pair at the first cleanup that finished with none of the held data
    /// left, or at a later change whose user owns all that is left; else says why it is open.
    private static func close(
        _ timing: inout SessionChangeTiming, with later: ArraySlice<TraceEvent>, laterChanges: ArraySlice<TraceEvent>
    ) {
        let owners = timing.held.users
        let comeBack = laterChanges.first { change in change.user().map { owners == [$0] } ?? false }?.t ?? .max
        var lastFailure: String?
        for event in later where event.t < comeBack {
            guard event.is(.cleanupFinished) || event.is(.cleanupFailed) else { continue }
            let left = Holdings(text: event[.holds] ?? "").items.filter { timing.held.items.contains($0) }
            if event.is(.cleanupFinished), left.isEmpty {
                timing.clean = event.t
                return
            }
            lastFailure = event[.error] ?? "the cleanup left \(Holdings(left))"
        }
        if comeBack != .max {
            timing.clean = comeBack
            return
        }
        timing.openReason =
            lastFailure.map { "cleanup failed: \($0)" }
            ?? (timing.notified == nil ? "the app has not learned of the change yet" : "the app ran no cleanup")
    }

    /// The app's own sign-in or sign-out is the user acting in the foreground app.
    private static func mechanism(of trigger: String) -> Mechanism {
        CheckTrigger(rawValue: trigger)?.mechanism ?? .none
    }
}

/// An app's data over a run, replayed from its trace: each write adds its user and kind; the
/// scan after each cleanup says what is left.
struct HeldData {
    private var history: [(t: UInt64, holdings: Holdings)] = []
    let cleanup: CleanupPolicy

    init(of events: [TraceEvent], cleanup: CleanupPolicy) {
        self.cleanup = cleanup
        var now = Holdings()
        for event in events {
            switch event.name {
            case .wrote:
                guard let user = event[.user], let kind = event[.kind].flatMap(RecordKind.init) else { continue }
                now.items.insert(.init(user: user, kind: kind))
            case .cleanupFinished, .cleanupFailed:
                guard let text = event[.holds] else { continue }
                now = Holdings(text: text)
            default: continue
            }
            history.append((event.t, now))
        }
    }

    /// Other users' data the app held just before `t` that its cleanup does not keep.
    func exposed(at t: UInt64, to user: String?) -> Holdings {
        // The history is in time order: the last entry before `t` is found by halving.
        let after = history.partitionPoint { $0.t < t }
        return (after > 0 ? history[after - 1].holdings : Holdings()).exposed(to: user, under: cleanup)
    }
}

extension RandomAccessCollection {
    /// In a collection where every element for which `comesFirst` holds comes before every
    /// other, the index of the first other one, found by halving.
    func partitionPoint(_ comesFirst: (Element) -> Bool) -> Index {
        var (low, high) = (startIndex, endIndex)
        while low < high {
            let middle = index(low, offsetBy: distance(from: low, to: high) / 2)
            if comesFirst(self[middle]) { low = index(after: middle) } else { high = middle }
        }
        return low
    }
}
