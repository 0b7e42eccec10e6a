/// An app's process lifecycle, iOS-like (Docs/behaviour.md §7): what each step does to one app, as
/// signals and notices the runner carries out.
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
    }

    public enum Refusal: Error, Equatable, Sendable {
        case notRunning(Action)
    }

    /// Whether the app keeps running in the background (else it is suspended there).
    public let backgroundMode: Bool
    public private(set) var state = State.notRunning

    public init(backgroundMode: Bool) { self.backgroundMode = backgroundMode }

    public var isRunning: Bool { state != .notRunning }

    public mutating func apply(_ action: Action) throws(Refusal) -> [Effect] {
        switch (action, state) {
        case (.launch, .notRunning):
            state = .foreground
            return [.spawn]
        case (.launch, _):
            // Already running: as a tap on its icon, it comes to the front; not a cold start
            // (terminate, then launch, for one).
            return try apply(.foreground)
        case (.terminate, .notRunning), (.crash, .notRunning):
            return []
        case (.terminate, let from):
            state = .notRunning
            // A stopped process acts on SIGTERM only once continued.
            return from == .suspended ? [.terminate, .continue] : [.terminate]
        case (.crash, _):
            state = .notRunning
            return [.kill]
        case (_, .notRunning):
            throw .notRunning(action)
        case (.foreground, .foreground), (.background, .background), (.background, .suspended),
            (.suspend, .suspended), (.resume, .foreground), (.resume, .background):
            return []
        case (.foreground, let from):
            state = .foreground
            return from == .suspended ? [.continue, .toldForeground] : [.toldForeground]
        case (.background, _):
            state = backgroundMode ? .background : .suspended
            return backgroundMode ? [.toldBackground] : [.toldBackground, .stop]
        case (.suspend, _):
            state = .suspended
            return [.stop]
        case (.resume, _):
            state = .background
            return [.continue, .toldResumed]
        }
    }
}

/// The device's one foreground app (Docs/behaviour.md §7): launching or foregrounding an app sends the
/// current foreground app to the background first.
public struct AppFleet: Equatable, Sendable {
    public private(set) var apps: [String: AppLifecycle]

    public init(_ apps: [String: AppLifecycle]) { self.apps = apps }

    public var foregroundApp: String? { apps.first { $0.value.state == .foreground }?.key }

    /// The effects, app by app, in the order to carry them out.
    public mutating func apply(_ action: AppLifecycle.Action, to name: String) throws(AppLifecycle.Refusal) -> [(
        app: String, effect: AppLifecycle.Effect
    )] {
        guard var app = apps[name] else { return [] }
        var effects: [(String, AppLifecycle.Effect)] = []
        let takesFront = action == .foreground || action == .launch
        if takesFront, let front = foregroundApp, front != name {
            effects += try apps[front]!.apply(.background).map { (front, $0) }
        }
        effects += try app.apply(action).map { (name, $0) }
        apps[name] = app
        return effects
    }
}

/// Which simulated SDK an app embeds (Docs/behaviour.md §4–§6).
public enum SDKKind: String, Codable, CaseIterable, Sendable {
    case msal
    case msalAndroid = "msal-android"
    case ws1

    /// MSAL apps listen to the broker's posts; Workspace ONE apps never do.
    public var listensToPosts: Bool { self != .ws1 }
}
