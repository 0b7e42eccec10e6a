import DeviceProcesses
import FoundationEssentials
import Glibc
import SDKClients
import SharedDevice

/// Carries out an app's cleanup (Docs/behaviour.md §8) as the domain's plan says, and keeps
/// the journal: the jobs not yet done, saved before anything is deleted and cleared once one
/// ends clean, so an app killed in the middle, or whose cleanup failed, runs them again at its
/// next launch before it shows anything.
public struct Cleaner: Sendable {
    public let container: Container
    /// The keychain and name of this app's key of `sensitive` records (its own, or its SDK's).
    public let dataKey: (keychain: Keychain, name: String)
    public let hookTimeout: Duration
    /// The folder a hook runs in, so that its relative paths are the scenario's; nil: the app's.
    public let hookDirectory: String?

    public init(
        container: Container, dataKey: (keychain: Keychain, name: String), hookTimeout: Duration = .seconds(10),
        hookDirectory: String? = nil
    ) {
        self.container = container
        self.dataKey = dataKey
        self.hookTimeout = hookTimeout
        self.hookDirectory = hookDirectory
    }

    public typealias Job = CleanupJob

    public struct HookFailure: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    var journalPath: String { container.root + "/cleanup-journal.json" }

    /// The jobs a previous process left unfinished, oldest first.
    public func unfinished() -> [Job] {
        FileManager.default.contents(atPath: journalPath).flatMap { try? JSONDecoder().decode([Job].self, from: $0) }
            ?? []
    }

    /// Saves the unfinished jobs (an empty list once none is left; the file is reused, see
    /// `AtomicFile`). A journal that cannot be written (a full disk) does not stop a cleanup:
    /// deleting is what frees the space, and the app's saved user still says whose data it
    /// holds, so a crash before the journal is written is caught up with at the next launch.
    public func journal(_ jobs: [Job]) throws {
        try AtomicFile.write(jobs.isEmpty ? Self.noJobs : JSONEncoder().encode(jobs), to: journalPath)
    }

    static let noJobs = Data("[]".utf8)

    /// Runs the job's policy to its end. A hook that fails or outlives its timeout, or a delete
    /// that fails, throws.
    public func run(_ job: Job) throws {
        let plan = job.policy.plan
        let hookFailure = plan.hook.flatMap { runHook($0, for: job) }
        try container.delete(plan.deletes)
        if plan.deletesDataKey { try dataKey.keychain.deleteKey(dataKey.name) }
        if let hookFailure { throw hookFailure }
    }

    /// The most output a hook may write (`hook.log`): a hook that floods it is stopped.
    static let hookOutputLimitKiB = 1024

    /// The team's command through `/bin/sh -c`, in its own process group (so a timeout stops
    /// whatever it started), its output appended to `hook.log` in the container, at most
    /// `hookOutputLimitKiB` of it (`ulimit -f`: past it the writer gets SIGXFSZ), and what it
    /// creates private to the user (`umask 077`), like the rest of the container.
    private func runHook(_ command: String, for job: Job) -> HookFailure? {
        // The hook sees exactly the documented SDLAB_ variables: none the app inherited.
        let inherited = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SDLAB_") }
        let environment = inherited.merging([
            "SDLAB_APP": container.app, "SDLAB_CONTAINER": container.root,
            "SDLAB_PREVIOUS_USER": job.previousUser ?? "", "SDLAB_CURRENT_USER": job.currentUser ?? "",
            "SDLAB_REASON": job.reason.description, "SDLAB_HOOK": command, "SDLAB_HOOK_DIRECTORY": hookDirectory ?? ".",
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
