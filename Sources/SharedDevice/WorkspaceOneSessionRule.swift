/// How the Workspace ONE SDK inside an app sees a session change (Docs/behaviour.md §6). It
/// hears no broadcast: it detects changes only at a cold start and at a return to the
/// foreground, by comparing the hub's session with the last one it saw.
public struct WorkspaceOneSessionRule: Codable, Equatable, Sendable {
    public enum Opportunity: String, Sendable {
        case coldStart = "cold-start"
        case returnToForeground = "foreground"
    }

    public enum Callback: Equatable, Sendable, CustomStringConvertible {
        /// controllerDidWipeCurrentUserData
        case wipe
        /// controllerDidDetectUserChange
        case userChanged
        /// controllerDidFinishInitialCheck, with its error if any.
        case initialCheck(error: String?)

        /// The callback as the app gets it.
        public var callback: SDKCallback {
            switch self {
            case .wipe: .wipe
            case .userChanged: .userChanged
            case .initialCheck(let error): .initialCheck(error: error)
            }
        }

        public var description: String { callback.description }
    }

    public enum Effect: Equatable, Sendable {
        /// Delete the SDK's data-encryption keys (always before `wipe`).
        case deleteDataKeys
        case callback(Callback)
        /// Block the UI until the app is terminated and launched again.
        case block
    }

    public static let notCheckedOutError = "sharedDeviceNotCheckedOut"
    /// The initial check's error when the Hub did not answer.
    public static let hubUnreachableError = "HubUnreachable"

    /// The last session the SDK saw; persisted in the app's container, so it outlives the process.
    public private(set) var lastSession: Session?
    /// Initialisation succeeded in this process (the user's identity is available).
    public private(set) var initialised = false
    /// The UI is blocked until the next launch.
    public private(set) var blocked = false

    public init(lastSession: Session? = nil) { self.lastSession = lastSession }

    private enum CodingKeys: String, CodingKey { case lastSession }

    /// Whether the SDK looks at this opportunity: a cold start always, a return to the
    /// foreground only in an initialised app whose UI is not blocked.
    public func takes(_ opportunity: Opportunity) -> Bool { opportunity == .coldStart || (initialised && !blocked) }

    /// At an opportunity, given the session the Hub answered (none when it did not answer:
    /// then nothing changes, except that an initialisation that failed blocks the UI, Docs/behaviour.md §7).
    public mutating func detect(_ opportunity: Opportunity, hub: Session?) -> [Effect] {
        guard takes(opportunity) else { return [] }
        if opportunity == .coldStart {
            initialised = false
            blocked = false
        }
        guard let hub else {
            guard opportunity == .coldStart else { return [] }
            blocked = true
            return [.callback(.initialCheck(error: Self.hubUnreachableError)), .block]
        }
        var effects: [Effect] = []
        if let stored = lastSession {
            if Self.ended(stored, by: hub) { effects += [.deleteDataKeys, .callback(.wipe)] }
            if hub.state == .checkedOut, !Self.isSameSession(stored, hub) { effects.append(.callback(.userChanged)) }
        }
        lastSession = hub
        let checkedOut = hub.state == .checkedOut
        if opportunity == .coldStart {
            effects.append(.callback(.initialCheck(error: checkedOut ? nil : Self.notCheckedOutError)))
            initialised = checkedOut
        }
        if !checkedOut {
            blocked = true
            effects.append(.block)
        }
        return effects
    }

    /// A checked-out session has ended once the hub holds another generation or is no longer
    /// checked out; an enterprise wipe ends an enrolled device's state even when checked in.
    private static func ended(_ stored: Session, by hub: Session) -> Bool {
        if stored.state == .checkedOut { return !isSameSession(stored, hub) }
        return stored.state != .unenrolled && hub.state == .unenrolled
    }

    private static func isSameSession(_ a: Session, _ b: Session) -> Bool {
        a.state == .checkedOut && b.state == .checkedOut && a.generation == b.generation
    }
}
