import DeviceContract
@_spi(BuiltIn) import DeviceHost
import DeviceProcesses
import Foundation
import SharedDevice

/// What the built-in app does when its user changes (Docs/behaviour.md §8): the domain's
/// model decides (`AppModel`), its policy's plan or hook runs (`Cleaner`), and a journal keeps
/// the cleanups not yet done, so one cut short by a crash, or that failed, runs again at the
/// next check and the next launch. The host is told each cleanup as it begins and ends, and
/// judges it by the bytes left, as it judges a team's. Used on the main queue only.
@MainActor
final class BuiltInCleanups {
    private let host: DeviceHost
    private let cleaner: Cleaner
    private let container: Container
    private(set) var model: AppModel
    /// The unfinished cleanups as last written to the journal.
    private var journaled: [CleanupJob] = []
    /// The user as last saved to `app-state.json`.
    private var savedUser: String?
    private let statePath: String
    /// Called as a cleanup that forgets the user's `external` key begins.
    var forgetsExternalKey: () -> Void = {}

    init(host: DeviceHost, container: Container, cleaner: Cleaner, policy: CleanupPolicy) {
        self.host = host
        self.container = container
        self.cleaner = cleaner
        statePath = container.root + "/app-state.json"
        let saved = FileManager.default.contents(atPath: statePath).flatMap {
            try? JSONDecoder().decode(String?.self, from: $0)
        }
        model = AppModel(policy: policy, user: saved ?? nil)
        savedUser = saved ?? nil
        host.actsFor(model.user, preferencesApplied: false)
    }

    /// At launch, before anything else: the cleanups a previous process left unfinished.
    func resumeUnfinished() async {
        let unfinished = cleaner.unfinished()
        guard !unfinished.isEmpty else { return }
        HookRecord.stopLeftover(in: container.root)  // the hook of the run that died, if it outlived it
        model.resume(unfinished)
        journaled = unfinished
        await rerun(unfinished, noting: .cleanupResumed)
        saveModel()
    }

    /// Acts on what an SDK check told the app, then runs again the cleanups left unfinished
    /// before it, whatever the SDK said (nil: it could not answer).
    func checkEnded(_ result: CheckResult?) async {
        let unfinished = model.unfinishedCleanups
        if let result, result.looked {
            await react(model.heard(result, hasPreferences: container.hasPreferences(of:)))
        }
        await rerun(unfinished, noting: .cleanupRetried)
    }

    /// The app's own sign-in or sign-out changed its user.
    func changedHere(to user: String?, reason: CheckTrigger) async {
        await react([
            model.userChanged(to: user, reason: .check(reason), hasPreferences: container.hasPreferences(of:))
        ])
    }

    /// Forgets the old user's key, cleans up, re-applies preferences, then saves whom the app
    /// acts for (last, so a crash before it repeats the cleanup).
    private func react(_ reactions: [AppModel.Reaction]) async {
        for reaction in reactions where reaction != .nothing {
            if let job = reaction.cleanup {
                if job.policy.plan.discardsExternalKey { forgetsExternalKey() }
                await carryOut(job, noting: nil)
            }
            if reaction.reappliesPreferences, let user = model.user {
                host.note(.preferencesApplied, [.user: .string(user)])
            }
        }
        host.actsFor(model.user, preferencesApplied: model.preferencesApplied)
        saveModel()
    }

    /// Runs unfinished cleanups again, oldest first, until one ends clean (which settles them all).
    private func rerun(_ jobs: [CleanupJob], noting event: TraceName) async {
        for job in jobs where model.unfinishedCleanups.contains(job) {
            await carryOut(job, noting: event)
        }
    }

    /// Journals the unfinished cleanups, runs the job (a hook off the main thread), and lets the
    /// host judge it by the container's bytes; the model keeps a failed job for the next check.
    private func carryOut(_ job: CleanupJob, noting event: TraceName?) async {
        journalUnfinishedCleanups()
        host.cleanupBegan(job, noting: event)
        let cleaner = cleaner
        let run = { @Sendable () -> String? in
            do {
                try cleaner.run(job)
                return nil
            } catch {
                return "\(error)"
            }
        }
        // A policy deletes a few files, at once; a hook may take long, on a thread of its own.
        let error = job.policy.plan.hook == nil ? run() : await offPool(run)
        let clean = host.cleanupEnded(job, error: error)
        model.cleanupEnded(job, clean: clean)
        journalUnfinishedCleanups()
    }

    /// Writes the journal if the unfinished cleanups changed since it was last written. One that
    /// cannot be written (a full disk) is tried again at the next cleanup; see `Cleaner.journal`.
    private func journalUnfinishedCleanups() {
        let jobs = model.unfinishedCleanups
        guard jobs != journaled, (try? cleaner.journal(jobs)) != nil else { return }
        journaled = jobs
    }

    private func saveModel() {
        let user = model.user
        guard user != savedUser else { return }
        do {
            try AtomicFile.write(JSONEncoder().encode(user), to: statePath)
            savedUser = user
        } catch {
            host.note(.saveFailed, [.error: .string("\(error)")])
        }
    }
}
