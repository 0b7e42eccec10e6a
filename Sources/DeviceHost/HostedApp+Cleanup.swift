import DeviceContract
import DeviceProcesses
import Foundation
import LeakScan
import SharedDevice

/// An app's cleanups, judged by its container's bytes (`CleanupVerdict`) and traced: the
/// built-in app's as it reports them, a team's app's from what its SDK said (`CleanupWatch`).
extension HostedApp {
    /// A cleanup the app runs, after `event` (`cleanup-resumed`, `cleanup-retried`) if given.
    func cleanupBegan(_ job: CleanupJob, noting event: TraceName?) {
        if let event { trace?.record(event, fields: fields(of: job)) }
        trace?.record(.cleanupStarted, fields: fields(of: job))
    }

    /// The app's cleanup ended (`error`: what it said went wrong), judged by the container's
    /// bytes (`CleanupVerdict`). The scan runs at once, the app's thread waiting for it:
    /// nothing of the app runs before it, so the data was gone when the cleanup returned, and
    /// the exposure it measures ends there, without the scan, which is the tool's weight, not
    /// the app's. It runs at a low priority, so that in a fleet it does not hold back the
    /// other apps' cleanups either.
    func cleanupEnded(_ job: CleanupJob, error: String?) -> Bool {
        let returned = TraceLog.now()
        let verdict = confirmingScans.run { self.judge(job, error: error) }
        if verdict.isClean {
            trace?.record(.cleanupFinished, at: returned, fields: fields(of: job) + verdict.holdings)
            return true
        }
        state.withLock { $0.cleanupFailures.append(verdict.failure) }
        trace?.record(
            .cleanupFailed, at: verdict.ended,
            fields: fields(of: job) + verdict.holdings + [(.error, .string(verdict.failure))])
        return false
    }

    /// Judges a team's app's cleanup (`CleanupVerdict`). A scan after the app's own handling of
    /// the change that does not find it clean is a failed cleanup; the host keeps looking
    /// (after each piece of the app's code, and on a timer that backs off) until a scan finds
    /// it clean, as an app may finish its cleanup later.
    func scan(afterCheck: Bool) {
        guard let job = state.withLock({ $0.watch.job }) else { return }
        UserDefaults.standard.synchronize()
        let verdict = judge(job)
        if verdict.isClean {
            let closes = settling { $0.watch.close(job) }
            guard closes else { return }
            trace?.record(.cleanupFinished, at: verdict.ended, fields: fields(of: job) + verdict.holdings)
            return
        }
        let tell =
            afterCheck
            && state.withLock { state in
                guard state.watch.tellFailure(of: job) else { return false }
                state.cleanupFailures.append(verdict.failure)
                return true
            }
        if tell {
            trace?.record(
                .cleanupFailed, at: verdict.ended,
                fields: fields(of: job) + verdict.holdings + [(.error, .string(verdict.failure))])
        }
        schedulePoll()
    }

    /// `job`'s cleanup judged by the app's container as it is now.
    private func judge(_ job: CleanupJob, error: String? = nil) -> CleanupVerdict {
        CleanupVerdict(
            job, scanning: LeakScanner(container: sandbox.root, app: name, outOfScope: options.scanSkips), error: error)
    }

    private func schedulePoll() {
        let delay = state.withLock { $0.watch.schedulePoll() }
        guard let delay else { return }
        schedule(delay) {
            self.scans.async {
                self.state.withLock { $0.watch.pollRan() }
                self.scan(afterCheck: false)
            }
        }
    }

    /// Whom a cleanup was for, why, and what ran.
    func fields(of job: CleanupJob) -> [(TraceField, TraceValue)] {
        [
            (.previous, .user(job.previousUser)), (.current, .user(job.currentUser)),
            (.reason, .string(job.reason.description)),
        ]
            + Self.fields(of: job.policy)
    }

    /// What cleanup runs: a policy, a hook (with its command) or the app's own code, and what it keeps.
    static func fields(of policy: CleanupPolicy) -> [(TraceField, TraceValue)] {
        var fields: [(TraceField, TraceValue)] = [(.policy, .string(policy.name))]
        if case .hook(let command, _) = policy { fields.append((.hook, .string(command))) }
        let keeps = RecordKind.keepable.filter(policy.keeps.contains).map(\.rawValue)
        if !keeps.isEmpty { fields.append((.keeps, .string(keeps.joined(separator: ",")))) }
        return fields
    }
}
