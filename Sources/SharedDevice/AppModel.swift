/// One cleanup: for whom, why, and by which policy (Docs/behaviour.md §8).
public struct CleanupJob: Codable, Equatable, Sendable {
    public var previousUser: String?
    public var currentUser: String?
    public var reason: CleanupReason
    public var policy: CleanupPolicy

    public init(previousUser: String?, currentUser: String?, reason: CleanupReason, policy: CleanupPolicy) {
        self.previousUser = previousUser
        self.currentUser = currentUser
        self.reason = reason
        self.policy = policy
    }
}

/// Why an app cleans up. The trace, the report and a hook (`SDLAB_REASON`) read it as one word
/// (`sign-out`, `user-changed`, `signal`, …).
public enum CleanupReason: Codable, Equatable, Sendable, CustomStringConvertible {
    /// What the app's SDK told it of its user (the built-in app, which hears every callback).
    case told(News)
    /// The app's own sign-in or sign-out; for a team's app, whose callbacks the host does not
    /// read, the check that showed the change.
    case check(CheckTrigger)

    /// What an SDK's callback tells an app of its user.
    public enum News: String, Codable, Sendable {
        case signOut = "sign-out"
        case userChanged = "user-changed"
        case accountChanged = "account-changed"
        case wipe, blocked
    }

    public var description: String {
        switch self {
        case .told(let news): news.rawValue
        case .check(let trigger): trigger.rawValue
        }
    }
}

/// A managed app's own side of an account change (Docs/behaviour.md §4–§8): the user it acts for
/// (whose data it shows and writes) and what it does when its SDK says the user changed.
/// The SDK models decide *whether* the user changed; this decides what the app does about it.
public struct AppModel: Codable, Equatable, Sendable {
    public let policy: CleanupPolicy
    /// The user whose data the app shows and writes; persisted, so it outlives a crash.
    public private(set) var user: String?
    /// The current user's kept preferences were re-applied (retain-preferences).
    public private(set) var preferencesApplied = false
    /// Cleanups not yet done, oldest first: each job from its change until a cleanup ends
    /// clean. The app journals them and runs them again at every check and at its next launch,
    /// so data a cleanup could not delete (a full disk, a failing hook) is never given up on.
    public private(set) var unfinishedCleanups: [CleanupJob] = []

    public init(policy: CleanupPolicy, user: String? = nil) {
        self.policy = policy
        self.user = user
    }

    /// What the app does about one change.
    public struct Reaction: Equatable, Sendable {
        /// The previous user's data to clean up, if there was a previous user.
        public var cleanup: CleanupJob?
        /// Re-apply the new user's kept preferences.
        public var reappliesPreferences = false

        /// Nothing to do.
        public static let nothing = Reaction()
    }

    /// The app now serves `current`. `hasPreferences` says whether a user has kept preferences.
    /// `keep-all` (broken on purpose) takes its first user and then ignores every change: it
    /// goes on showing and writing the old user's data.
    public mutating func userChanged(
        to current: String?, reason: CleanupReason,
        hasPreferences: (String) -> Bool = { _ in false }
    ) -> Reaction {
        guard current != user, policy != .keepAll || user == nil else { return .nothing }
        let previous = user
        user = current
        var reaction = Reaction()
        if let previous {
            let job = CleanupJob(previousUser: previous, currentUser: current, reason: reason, policy: policy)
            reaction.cleanup = job
            unfinishedCleanups.append(job)
        }
        reaction.reappliesPreferences = policy.plan.reappliesPreferences && current.map(hasPreferences) == true
        preferencesApplied = reaction.reappliesPreferences
        return reaction
    }

    /// A cleanup ended. A clean one (no error, and no other user's data left that the cleanup
    /// does not keep) settles every unfinished job, since what any of them was for is gone;
    /// a failed one stays unfinished, to be run again.
    public mutating func cleanupEnded(_ job: CleanupJob, clean: Bool) {
        guard clean else { return }
        unfinishedCleanups = []
    }

    /// At launch, the cleanups the journal says a previous process left unfinished (cut short
    /// by a crash, or failed): the app runs them again before it shows anything, and acts for
    /// the last one's current user, as it would have had it not died.
    public mutating func resume(_ jobs: [CleanupJob]) {
        guard let last = jobs.last else { return }
        unfinishedCleanups = jobs
        user = last.currentUser
        preferencesApplied = false
    }

    /// What the app does about one check's result, callback by callback (Docs/behaviour.md §4–§6):
    /// - MSAL (iOS `current-account`, Android `account-changed` and `account-loaded`): the app
    ///   now serves the account named; nobody is a sign-out. It compares that account with its
    ///   own user, not only with the SDK's previous one, so a change the SDK reported just before
    ///   the app died (and will not report again) is still acted on at the next launch.
    /// - Workspace ONE: `wipe` ends the user; `user-changed` and a successful `initial-check`
    ///   adopt the session's user; a failed `initial-check` and a blocked UI end it. When the hub
    ///   did not answer, or the SDK did not look, the app learns nothing of the user.
    public mutating func heard(
        _ result: CheckResult, hasPreferences: (String) -> Bool = { _ in false }
    ) -> [Reaction] {
        guard result.looked, result.failure == nil else { return [] }
        let changes: [(user: String?, news: CleanupReason.News)] =
            result.callbacks.map { callback in
                switch callback {
                case .currentAccount(let current, _): (current, current == nil ? .signOut : .userChanged)
                case .accountChanged(_, let current), .accountLoaded(let current):
                    (current, current == nil ? .signOut : .accountChanged)
                case .wipe: (nil, .wipe)
                case .userChanged, .initialCheck(error: nil): (result.user, .userChanged)
                case .initialCheck(error: _?): (nil, .blocked)
                }
            } + (result.blocked ? [(nil, .blocked)] : [])
        return changes.map { userChanged(to: $0.user, reason: .told($0.news), hasPreferences: hasPreferences) }
            .filter { $0 != .nothing }
    }
}
