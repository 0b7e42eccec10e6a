import DeviceProcesses
import FoundationEssentials
import Glibc
import SharedDevice

/// Carries out an app's cleanup (Docs/behaviour.md §8) as the domain's plan says, journaled: the job is
/// saved before anything is deleted and cleared once it is done, so an app killed
/// in the middle finishes the same cleanup on its next launch, before it shows anything.
public struct Cleaner: Sendable {
    public let container: Container
    /// The keychain key of this app's `sensitive` records.
    public let dataKeyName: String
    public let hookTimeout: Duration
    /// The folder a hook runs in, so that its relative paths are the scenario's; nil: the app's.
    public let hookDirectory: String?

    public init(
        container: Container, dataKeyName: String, hookTimeout: Duration = .seconds(10),
        hookDirectory: String? = nil
    ) {
        self.container = container
        self.dataKeyName = dataKeyName
        self.hookTimeout = hookTimeout
        self.hookDirectory = hookDirectory
    }

    public typealias Job = CleanupJob

    public struct HookFailure: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    var journalPath: String { container.root + "/cleanup-journal.json" }

    /// The journal with no job in it (`Job?.none` as JSON).
    static let noJob = Data("null".utf8)

    /// A cleanup that was started and not finished (the app died in the middle).
    public func unfinished() -> Job? {
        FileManager.default.contents(atPath: journalPath).flatMap { try? JSONDecoder().decode(Job?.self, from: $0) }
            ?? nil
    }

    /// Runs the job to its end: the policy's plan, or `work` (an app's own cleanup) instead.
    /// A hook or `work` that fails, or a hook that outlives its timeout, throws; the job is
    /// finished either way (a failing cleanup is reported, not retried forever).
    public func run(_ job: Job, work: CleanupWork? = nil) throws {
        try AtomicFile.write(JSONEncoder().encode(job), to: journalPath)
        var failure: (any Error)?
        if let work {
            do { try work(job, container) } catch { failure = error }
        } else {
            failure = try carryOut(job.policy.plan, for: job)
        }
        // `null` rather than removed: the next cleanup reuses the file (see `AtomicFile`).
        try AtomicFile.write(Self.noJob, to: journalPath)
        if let failure { throw failure }
    }

    private func carryOut(_ plan: CleanupPolicy.Plan, for job: Job) throws -> HookFailure? {
        let hookFailure = plan.hook.flatMap { runHook($0, for: job) }
        try container.delete(plan.deletes)
        if plan.deletesDataKey { try container.keychain.deleteKey(dataKeyName) }
        return hookFailure
    }

    /// The most output a hook may write (`hook.log`): a hook that floods it is stopped.
    static let hookOutputLimitKiB = 1024

    /// The team's command through `/bin/sh -c`, in its own process group (so a timeout stops
    /// whatever it started), its output appended to `hook.log` in the container, at most
    /// `hookOutputLimitKiB` of it (`ulimit -f`: past it the writer gets SIGXFSZ), and what it
    /// creates private to the user (`umask 077`), like the rest of the container.
    private func runHook(_ command: String, for job: Job) -> HookFailure? {
        let environment = ProcessInfo.processInfo.environment.merging([
            "SDLAB_APP": container.app, "SDLAB_CONTAINER": container.root,
            "SDLAB_PREVIOUS_USER": job.previousUser ?? "", "SDLAB_CURRENT_USER": job.currentUser ?? "",
            "SDLAB_REASON": job.reason, "SDLAB_HOOK": command, "SDLAB_HOOK_DIRECTORY": hookDirectory ?? ".",
        ]) { $1 }
        let log = container.root + "/hook.log"
        // dash counts `ulimit -f` in 512-byte blocks.
        // `hook` is not exported: the command sees only the documented variables.
        let limited =
            "umask 077 && ulimit -f \(Self.hookOutputLimitKiB * 2) && cd \"$SDLAB_HOOK_DIRECTORY\""
            + " && hook=$SDLAB_HOOK && unset SDLAB_HOOK SDLAB_HOOK_DIRECTORY && exec /bin/sh -c \"$hook\""
        let hook: ChildProcess
        do {
            (hook, _) = try ChildProcess.spawn(
                "/bin/sh", ["-c", limited], stdout: .file(log), stderr: .file(log),
                environment: environment, newSession: true)
        } catch {
            return HookFailure(description: "the cleanup hook could not start: \(error)")
        }
        HookRecord.note(hook.pid, in: container.root)
        defer { HookRecord.clear(in: container.root) }
        guard let status = hook.exitStatus(timeout: hookTimeout) else {
            kill(-hook.pid, SIGKILL)
            _ = hook.exitStatus(timeout: .seconds(5))
            return HookFailure(description: "the cleanup hook `\(command)` did not finish within \(hookTimeout)")
        }
        kill(-hook.pid, SIGKILL)  // anything it left behind in its group
        switch status {
        case .exited(0): return nil
        case .signaled(SIGXFSZ), .exited(128 + SIGXFSZ):
            return HookFailure(
                description: "the cleanup hook `\(command)` wrote more than \(Self.hookOutputLimitKiB) KiB of output")
        default: return HookFailure(description: "the cleanup hook `\(command)` failed: \(status)")
        }
    }
}
