/// An app's process lifecycle, iOS-like (Docs/behaviour.md §7): what each step does to one app, as
/// signals and notices the runner carries out, and when an app sent to the background is
/// suspended. Time is the device's monotonic clock, as a `Duration` since any fixed origin.
public struct AppLifecycle: Equatable, Sendable {
    public enum State: String, Equatable, Sendable, Codable {
        case notRunning = "not-running"
        case foreground, background
        /// Really stopped (SIGSTOP): hears nothing until resumed.
        case suspended
    }

    public enum Action: String, Equatable, Sendable, CaseIterable {
        case launch, terminate, crash, foreground, background, suspend, resume
    }

    public enum Effect: Equatable, Sendable {
        case spawn
        /// SIGSTOP / SIGCONT / SIGTERM / SIGKILL to the app's process.
        case stop, `continue`, terminate, kill
        /// Tell the running app it came to the foreground (its SDK's opportunity to check),
        /// went to the background, or was continued in the background after a suspension (an
        /// MSAL app then polls for what it may have missed: posts to a stopped app can be lost).
        case toldForeground, toldBackground, toldResumed
        /// Tell the app its background time is up: the expiration handlers of its open
        /// background tasks run; once they return, `expirationHandlersReturned` says what follows.
        case toldTasksExpire
    }

    public enum Refusal: Error, Equatable, Sendable {
        case notRunning(Action)
    }

    /// Whether the app keeps running in the background (else it is suspended there).
    public let backgroundMode: Bool
    /// How long it runs in the background before it is suspended (without background mode).
    public let backgroundTime: BackgroundTime
    public private(set) var state = State.notRunning
    /// When the app entered the background, while its suspension is pending; nil otherwise.
    public private(set) var backgroundSince: Duration?
    /// The background tasks the app has open, as it last said.
    public private(set) var openTasks = 0
    /// Its background time ran out with tasks open, and their expiration handlers run.
    public private(set) var expiring = false

    /// Without a `backgroundTime`, an app without background mode is suspended the moment it
    /// is told it went to the background: the models that keep no time take it so.
    public init(backgroundMode: Bool, backgroundTime: BackgroundTime = .immediate) {
        self.backgroundMode = backgroundMode
        self.backgroundTime = backgroundTime
    }

    public var isRunning: Bool { state != .notRunning }

    /// When the pending suspension falls due: the grace after entering the background, or the
    /// background task time while a task is open; nil when none is pending.
    public var suspensionDue: Duration? {
        backgroundSince.map { $0 + backgroundTime.allowance(withTasks: openTasks > 0) }
    }

    /// `now` is when the action is taken: a `background` starts the app's background time then.
    public mutating func apply(_ action: Action, at now: Duration = .zero) throws(Refusal) -> [Effect] {
        let effects = try transition(action, at: now)
        // Out of the background, no suspension is pending; a process that ended has no tasks.
        if state != .background {
            backgroundSince = nil
            expiring = false
        }
        if state == .notRunning { openTasks = 0 }
        return effects
    }

    private mutating func transition(_ action: Action, at now: Duration) throws(Refusal) -> [Effect] {
        switch (action, state) {
        case (.launch, .notRunning):
            state = .foreground
            return [.spawn]
        case (.launch, _):
            // Already running: as a tap on its icon, it comes to the front; not a cold start
            // (terminate, then launch, for one).
            return try transition(.foreground, at: now)
        case (.terminate, .notRunning), (.crash, .notRunning):
            return []
        case (.terminate, .suspended):
            // iOS ends a suspended app without waking it: no code runs (no willTerminate), and
            // a post queued for it is lost with it.
            state = .notRunning
            return [.kill]
        case (.terminate, _):
            state = .notRunning
            return [.terminate]
        case (.crash, _):
            state = .notRunning
            return [.kill]
        case (_, .notRunning):
            throw .notRunning(action)
        case (.foreground, .foreground), (.background, .background), (.background, .suspended),
            (.suspend, .suspended), (.resume, .foreground), (.resume, .background):
            // Nothing to do. A resumed app that runs is not woken: its background time goes on.
            return []
        case (.foreground, let from):
            state = .foreground
            return from == .suspended ? [.continue, .toldForeground] : [.toldForeground]
        case (.background, _):
            return runInBackground(from: now, after: [.toldBackground])
        case (.suspend, _):
            state = .suspended
            return [.stop]
        case (.resume, _):
            // iOS wakes a suspended app to handle an event, then suspends it again under the
            // same background time, counted from the resume.
            return runInBackground(from: now, after: [.continue, .toldResumed])
        }
    }

    /// The app runs in the background from `now`, once `told`: for good with background mode,
    /// else for its background time; with none at all it is suspended at once.
    private mutating func runInBackground(from now: Duration, after told: [Effect]) -> [Effect] {
        state = .background
        guard !backgroundMode else { return told }
        guard backgroundTime.allowance(withTasks: true) > .zero else {
            state = .suspended
            return told + [.stop]
        }
        backgroundSince = now
        return told
    }

    /// The app's process ended on its own (it exited, or a signal no step sent killed it): it
    /// is not running, and the next `launch` is a cold start, as a tap on the icon of an app
    /// that died is on a phone.
    public mutating func processEnded() {
        state = .notRunning
        backgroundSince = nil
        openTasks = 0
        expiring = false
    }

    /// The app says how many background tasks it has open (`beginBackgroundTask`,
    /// `endBackgroundTask`), heard at `now`. It counts whenever it is heard while the app runs
    /// (a task begun in `applicationDidEnterBackground` with a grace of 0s included); a stopped
    /// app says nothing, so a late word from one is ignored. Ending the last task after the
    /// grace suspends the app at once.
    public mutating func backgroundTasks(_ open: Int, at now: Duration) -> [Effect] {
        guard state == .foreground || state == .background else { return [] }
        openTasks = max(0, open)
        return advance(to: now)
    }

    /// What has fallen due by `now`: the suspension, or, when the app's time ran out with a
    /// task open, its expiration handlers first (`expirationHandlersReturned` then decides).
    public mutating func advance(to now: Duration) -> [Effect] {
        guard state == .background, let due = suspensionDue, now >= due else { return [] }
        backgroundSince = nil
        guard openTasks > 0 else {
            state = .suspended
            return [.stop]
        }
        expiring = true
        return [.toldTasksExpire]
    }

    /// The expiration handlers returned, leaving `stillOpen` tasks (nil: they did not return in
    /// time, so none was ended). An app that ended every task is suspended; one whose task
    /// outlived its handler is ended, without running more code, as iOS ends an app that does
    /// not end its tasks before its time is up (Docs/behaviour.md §7).
    public mutating func expirationHandlersReturned(stillOpen: Int?) -> [Effect] {
        guard expiring, state == .background else { return [] }
        expiring = false
        openTasks = 0
        guard stillOpen == 0 else {
            state = .notRunning
            return [.kill]
        }
        state = .suspended
        return [.stop]
    }
}

/// The device's one foreground app (Docs/behaviour.md §7): launching or foregrounding an app sends the
/// current foreground app to the background first.
public struct AppFleet: Equatable, Sendable {
    public private(set) var apps: [String: AppLifecycle]
    /// The Hub app took the front at a worker's check-in or check-out, and no app has since.
    public private(set) var hubInFront = false

    public init(_ apps: [String: AppLifecycle]) { self.apps = apps }

    public var foregroundApp: String? { apps.first { $0.value.state == .foreground }?.key }

    /// The worker opens the Hub app to check in or out (Docs/behaviour.md §1): the app in front
    /// goes to the background, as when any other app takes the front, with its background time.
    public mutating func hubTakesFront(at now: Duration = .zero) -> Effects {
        hubInFront = true
        guard let front = foregroundApp, let effects = try? apps[front]!.apply(.background, at: now) else { return [] }
        return effects.map { (front, $0) }
    }

    public typealias Effects = [(app: String, effect: AppLifecycle.Effect)]

    /// The effects, app by app, in the order to carry them out.
    public mutating func apply(
        _ action: AppLifecycle.Action, to name: String, at now: Duration = .zero
    ) throws(AppLifecycle.Refusal) -> Effects {
        guard var app = apps[name] else { return [] }
        var effects: Effects = []
        let takesFront = action == .foreground || action == .launch
        if takesFront, let front = foregroundApp, front != name {
            effects += try apps[front]!.apply(.background, at: now).map { (front, $0) }
        }
        effects += try app.apply(action, at: now).map { (name, $0) }
        apps[name] = app
        if takesFront { hubInFront = false }
        return effects
    }

    /// `name`'s process ended on its own; a foreground app that died leaves no app in front.
    public mutating func processEnded(_ name: String) {
        apps[name]?.processEnded()
    }

    /// `name` says how many background tasks it has open, heard at `now`.
    public mutating func backgroundTasks(_ open: Int, of name: String, at now: Duration) -> Effects {
        guard apps[name] != nil else { return [] }
        return apps[name]!.backgroundTasks(open, at: now).map { (name, $0) }
    }

    /// `name`'s expiration handlers returned, leaving `stillOpen` tasks (nil: not in time).
    public mutating func expirationHandlersReturned(stillOpen: Int?, of name: String) -> Effects {
        guard apps[name] != nil else { return [] }
        return apps[name]!.expirationHandlersReturned(stillOpen: stillOpen).map { (name, $0) }
    }

    /// Every suspension due by `now`, earliest first (then by name).
    public mutating func advance(to now: Duration) -> Effects {
        let due = apps.compactMap { name, app in app.suspensionDue.map { (name, $0) } }.filter { $0.1 <= now }
        return due.sorted { ($0.1, $0.0) < ($1.1, $1.0) }.flatMap { name, _ in
            apps[name]!.advance(to: now).map { (name, $0) }
        }
    }

    /// The earliest pending suspension; nil when none is.
    public var nextSuspension: Duration? { apps.values.compactMap(\.suspensionDue).min() }
}

/// Which simulated SDK an app embeds (Docs/behaviour.md §4–§6).
public enum SDKKind: String, Codable, CaseIterable, Sendable {
    case msal
    case msalAndroid = "msal-android"
    case ws1

    /// What an app of the SDK hears of an account change: the iOS broker's Darwin name, or the
    /// Android broker's broadcast action; nothing for Workspace ONE (Docs/behaviour.md §2, §6).
    public var announcement: String? {
        switch self {
        case .msal: NotifyCenter.accountChanged
        case .msalAndroid: AndroidBroker.accountChangedAction
        case .ws1: nil
        }
    }

    /// An Android app (MSAL Android); the others are iOS apps.
    public var isAndroid: Bool { self == .msalAndroid }

    /// MSAL apps listen to the broker's posts; Workspace ONE apps never do.
    public var listensToPosts: Bool { announcement != nil }

    /// Whether the SDK follows MSAL's account apart from the Hub's session: an MSAL SDK when
    /// Authenticator is the broker. Else it follows the session, which with the Hub as broker
    /// is MSAL's account too (Docs/behaviour.md §2).
    public func followsMSALAccountAlone(under setup: BrokerSetup) -> Bool {
        listensToPosts && setup == .authenticator
    }

    /// MSAL apps ask for the current account whenever they are resumed (MSAL's guidance, both
    /// flavours), not only when a post came: a post may have been dropped while the app was
    /// stopped, and a change may post nothing. The Workspace ONE SDK looks at launch and on a
    /// return to the foreground only.
    public var checksWhenResumed: Bool { self != .ws1 }

    /// Whether an app told it was resumed (continued at `continuedAt`, on the traces' clock)
    /// checks: a check that began since (for the posts it was sent while stopped, which start
    /// one as soon as it runs) serves the resume, so a resume is one check however the
    /// continue and the telling race.
    public func checksOnResume(continuedAt: UInt64, lastCheckBegan: UInt64) -> Bool {
        checksWhenResumed && lastCheckBegan < continuedAt
    }
}
