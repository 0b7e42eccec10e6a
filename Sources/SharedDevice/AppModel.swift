/// One cleanup: for whom, why, and by which policy (Docs/behaviour.md §8).
public struct CleanupJob: Codable, Equatable, Sendable {
    public var previousUser: String?
    public var currentUser: String?
    /// What the app learnt: `sign-out`, `user-changed`, `account-changed`, `wipe`, …
    public var reason: String
    public var policy: CleanupPolicy

    public init(previousUser: String?, currentUser: String?, reason: String, policy: CleanupPolicy) {
        self.previousUser = previousUser
        self.currentUser = currentUser
        self.reason = reason
        self.policy = policy
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
        to current: String?, reason: String,
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

    /// An iOS MSAL result (Docs/behaviour.md §4): a changed user is a sign-out or a switch. The app also
    /// compares the result with its own user, so a change the SDK reported just before the app
    /// died (and will not report again) is still acted on at the next launch.
    public mutating func heard(
        _ result: MSALClient.CurrentAccount,
        hasPreferences: (String) -> Bool = { _ in false }
    ) -> Reaction {
        guard result.userChanged || result.current?.username != user else { return .nothing }
        return userChanged(
            to: result.current?.username, reason: result.current == nil ? "sign-out" : "user-changed",
            hasPreferences: hasPreferences)
    }

    /// Android MSAL callbacks (Docs/behaviour.md §5): `account-changed` carries the change. As on iOS, the app
    /// also compares `account-loaded` with its own user: a change the SDK reported just before
    /// the app died is not reported again, and is still acted on at the next launch.
    public mutating func heard(
        _ callbacks: [AndroidMSALClient.Callback],
        hasPreferences: (String) -> Bool = { _ in false }
    ) -> Reaction {
        // The first account named that is not the app's user (`account-changed` comes first).
        guard let current = callbacks.lazy.map(\.account).first(where: { $0?.username != user }) else {
            return .nothing
        }
        return userChanged(
            to: current?.username, reason: current == nil ? "sign-out" : "account-changed",
            hasPreferences: hasPreferences)
    }

    /// Workspace ONE effects (Docs/behaviour.md §6) at an opportunity where the hub answered `session` (nil:
    /// it did not, and a blocked UI says nothing of the user): `wipe` ends the user,
    /// `user-changed` and a successful `initial-check` adopt the session's user.
    public mutating func heard(
        _ effects: [WorkspaceOneSDK.Effect], session: Session?,
        hasPreferences: (String) -> Bool = { _ in false }
    ) -> [Reaction] {
        guard let session else { return [] }
        return effects.compactMap { effect in
            switch effect {
            case .callback(.wipe):
                userChanged(to: nil, reason: "wipe", hasPreferences: hasPreferences)
            case .callback(.userChanged), .callback(.initialCheck(error: nil)):
                userChanged(to: session.user, reason: "user-changed", hasPreferences: hasPreferences)
            case .callback(.initialCheck(error: _?)), .block:
                userChanged(to: nil, reason: "blocked", hasPreferences: hasPreferences)
            case .deleteDataKeys:
                nil
            }
        }.filter { $0 != .nothing }
    }
}
