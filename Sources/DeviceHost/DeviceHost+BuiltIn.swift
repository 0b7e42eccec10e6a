import DeviceContract
import SharedDevice

/// Which cleanups an app may be declared with: a team's app cleans up with code of its own;
/// the built-in app with a declared policy or hook, which its code carries out. What runs is
/// what the scenario declared, or the app does not start.
@_spi(BuiltIn)
public enum CleanupSupport: Sendable, Equatable {
    /// A team's app: `own` (with what it keeps).
    case own
    /// The built-in app: a policy or a hook.
    case builtIn

    /// Why an app of this kind cannot run `policy`, if it cannot.
    func refusal(of policy: CleanupPolicy) -> String? {
        let isOwn = if case .own = policy { true } else { false }
        switch self {
        case .own where !isOwn:
            return "it cleans up with code of its own, not \(policy.name): declare `cleanup: own`"
                + " (or `cleanup: {keeps: [...]}`) for it, or run it with --cleanup own"
        case .builtIn where isOwn: return "--cleanup own: this app has no cleanup code of its own"
        default: return nil
        }
    }
}

/// What the built-in app tells the host and hears from it beyond what a team's app does: it
/// decides on each check's typed result, it is told when the runner continued it, and it
/// fetches what storing a kind of record takes before the records are handed to it.
@_spi(BuiltIn)
@MainActor
public protocol BuiltInDeviceLabApp: DeviceLabApp {
    /// A check ended with `result` (nil: the SDK could not answer). Called before the app code
    /// the check's answer leads to.
    func checkEnded(_ result: CheckResult?)
    /// The runner continued the app (`continuedAt`, CLOCK_MONOTONIC ns); its latest check began
    /// at `lastCheckBegan`.
    func resumed(continuedAt: UInt64, lastCheckBegan: UInt64)
    /// Before records of `kind` of `user` are stored: what storing them takes from the device.
    func prepareToStore(_ kind: RecordKind, of user: String) async throws
}

extension DeviceHost {
    /// The app's options, as the runner gave them.
    @_spi(BuiltIn) public var options: AppOptions { app.options }

    /// Runs the app's `work` on the main actor, at once when called there (up to its first
    /// suspension: a check that changes nothing costs no hop); the check it began in, and
    /// `settled()`, wait for it.
    @_spi(BuiltIn) public func appWork(_ work: @escaping @MainActor @Sendable () async -> Void) {
        app.workBegan()
        Task.immediate { @MainActor in
            await work()
            app.workEnded()
        }
    }

    /// The app is about to start a check because of `trigger`.
    @_spi(BuiltIn) public func checkBecause(_ trigger: CheckTrigger) {
        app.withState { $0.checks.opportunity = trigger }
    }

    /// The app now acts for `user`: the snapshot's user, and the user whose records it is handed.
    @_spi(BuiltIn) public func actsFor(_ user: String?, preferencesApplied: Bool) {
        app.actsFor(user, preferencesApplied: preferencesApplied)
    }

    /// A cleanup the app begins, after `event` (`cleanup-resumed`, `cleanup-retried`) if given.
    @_spi(BuiltIn) public func cleanupBegan(_ job: CleanupJob, noting event: TraceName?) {
        app.cleanupBegan(job, noting: event)
    }

    /// The app's cleanup ended: whether it is clean, judged by the container's bytes.
    @_spi(BuiltIn) public func cleanupEnded(_ job: CleanupJob, error: String?) -> Bool {
        app.cleanupEnded(job, error: error)
    }

    /// Writes an event of the app's to its trace.
    @_spi(BuiltIn) public func note(_ event: TraceName, _ fields: KeyValuePairs<TraceField, TraceValue> = [:]) {
        app.trace?.record(event, fields)
    }
}
