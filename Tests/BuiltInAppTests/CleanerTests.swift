import BuiltInApp
import Crypto
import DeviceProcesses
import Foundation
import SDKClients
import SharedDevice
import TestSupport
import Testing

/// Docs/behaviour.md §8: cleanups carried out, the journal, and the team's hook.
@Suite(.ownThread) struct CleanerTests {
    /// A container holding two records of every kind for cou1, and a cleaner for it.
    static func withFilledContainer(
        hookTimeout: Duration = .seconds(10), _ body: (Container, Cleaner, Container.Keys) throws -> Void
    ) throws {
        try ContainerTests.withContainer { container in
            let keys = Container.Keys(data: try container.keychain.key("data"), external: SymmetricKey(size: .bits256))
            for kind in RecordKind.allCases { try container.write(kind, count: 2, user: "cou1", keys: keys) }
            try body(
                container,
                Cleaner(container: container, dataKey: (container.keychain, "data"), hookTimeout: hookTimeout), keys)
        }
    }

    static func job(_ policy: CleanupPolicy) -> Cleaner.Job {
        Cleaner.Job(previousUser: "cou1", currentUser: "cou2", reason: .told(.userChanged), policy: policy)
    }

    @Test(arguments: ["wipe-all", "retain-preferences", "cache-common", "external-key", "keep-all"])
    func aPolicyLeavesWhatItKeeps(name: String) throws {
        let policy = try #require(CleanupPolicy(name: name))
        try Self.withFilledContainer { container, cleaner, keys in
            try cleaner.run(Self.job(policy))
            let left = Set(container.readable(with: keys).map(\.kind))
            #expect(left == Set(RecordKind.allCases).subtracting(policy.plan.deletes))
            #expect((container.keychain.existingKey("data") == nil) == policy.plan.deletesDataKey)
        }
    }

    @Test func theJournalKeepsTheUnfinishedJobsInOrder() throws {
        try Self.withFilledContainer { container, cleaner, keys in
            let jobs = [
                Self.job(.wipeAll),
                Cleaner.Job(previousUser: "cou2", currentUser: nil, reason: .told(.signOut), policy: .wipeAll),
            ]
            try cleaner.journal(jobs)
            #expect(cleaner.unfinished() == jobs)
            try cleaner.run(jobs[0])
            try cleaner.journal([])
            #expect(container.readable(with: keys).isEmpty && cleaner.unfinished().isEmpty)
        }
    }

    @Test func theHookGetsTheDocumentedEnvironment() throws {
        try Self.withFilledContainer { container, cleaner, _ in
            let command = "env | grep '^SDLAB_' | sort > \"$SDLAB_CONTAINER/hook-saw.txt\""
            try cleaner.run(Self.job(.hook(command: command)))
            let saw = try String(contentsOfFile: container.root + "/hook-saw.txt", encoding: .utf8)
            #expect(
                saw == """
                    SDLAB_APP=mail
                    SDLAB_CONTAINER=\(container.root)
                    SDLAB_CURRENT_USER=cou2
                    SDLAB_PREVIOUS_USER=cou1
                    SDLAB_REASON=user-changed

                    """)
        }
    }

    @Test func aFailingHookIsACleanupFailure() throws {
        try Self.withFilledContainer { _, cleaner, _ in
            let failure = #expect(throws: Cleaner.HookFailure.self) {
                try cleaner.run(Self.job(.hook(command: "echo oops; exit 3")))
            }
            #expect(failure?.description == "the cleanup hook `echo oops; exit 3` failed: exit code 3")
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func aHangingHookIsStoppedAtItsTimeoutWithWhatItStarted() throws {
        try Self.withFilledContainer(hookTimeout: .milliseconds(300)) { container, cleaner, _ in
            let started = ContinuousClock.now
            let command = "sleep 60 & echo $! > \"$SDLAB_CONTAINER/child.pid\"; sleep 60"
            #expect(throws: Cleaner.HookFailure.self) { try cleaner.run(Self.job(.hook(command: command))) }
            #expect(ContinuousClock.now - started < .seconds(10))
            let child = try #require(
                Int32(
                    String(contentsOfFile: container.root + "/child.pid", encoding: .utf8)
                        .trimmingCharacters(in: .whitespacesAndNewlines)))
            // Killed with its group: SIGKILL is delivered at once, but the process may take a
            // moment to end on a busy machine; it then is gone, or a zombie until init reaps it.
            #expect(ChildProcess(pid: child).waitForExit(timeout: .seconds(5)), "the hook's child \(child) still runs")
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func aHookThatFloodsItsOutputIsStoppedAndReported() throws {
        try Self.withFilledContainer { container, cleaner, _ in
            let failure = #expect(throws: Cleaner.HookFailure.self) {
                try cleaner.run(Self.job(.hook(command: "yes flood")))
            }
            #expect(
                failure?.description.contains("wrote more than 1024 KiB of output") == true,
                "\(String(describing: failure))")
            let size =
                try FileManager.default.attributesOfItem(atPath: container.root + "/hook.log")[.size] as? Int ?? 0
            #expect(size > 0 && size <= 1024 * 1024)
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func aHookOutlivingItsAppIsStoppedByWhoeverFindsTheAppGone() throws {
        try ContainerTests.withContainer { container in
            let (hook, _) = try ChildProcess.spawn(
                "/bin/sh", ["-c", "sleep 60"], stdout: .null, stderr: .null,
                environment: ["SDLAB_CONTAINER": container.root], newSession: true)
            defer { hook.stop(grace: .seconds(1)) }
            HookRecord.note(hook.pid, in: container.root)
            HookRecord.stopLeftover(in: container.root)
            #expect(hook.exitStatus(timeout: .seconds(5)) == .signaled(SIGKILL))
            #expect(!FileManager.default.fileExists(atPath: container.root + "/running-hook.pid"))
        }
    }

    @Test func aReusedPIDIsLeftAlone() throws {
        try ContainerTests.withContainer { container in
            let (other, _) = try ChildProcess.spawn(
                "/bin/sh", ["-c", "sleep 60"], stdout: .null, stderr: .null, newSession: true)
            defer { other.stop(grace: .seconds(1)) }
            HookRecord.note(other.pid, in: container.root)
            HookRecord.stopLeftover(in: container.root)
            #expect(other.isRunning, "a process that is not this container's hook")
        }
    }
}
