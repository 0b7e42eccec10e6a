import DeviceProcesses
import Foundation
import TestSupport
import Testing

/// A run killed outright (SIGKILL: it has no last word) leaves nothing alive, not even what a
/// running cleanup hook started in a session of its own with its environment cleared, and the
/// next run removes the folder it left, which holds the test users' records.
@Suite(.tags(.device), .devicesWanted, .serialized, .timeLimit(.minutes(3)))
struct KilledRunTests {
    /// Before: the bus, hub and apps ended, but a running hook and its children lived on.
    @Test func aKilledRunLeavesNothingAliveAndTheNextRunRemovesItsFolder() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-sigkill")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let runs = folder + "/runs"  // the runs' TMPDIR
        try DevicePaths.prepareDirectory(runs)
        let file = try writeScenario(Self.hookThatLeavesChildren, named: "killed", in: folder)
        let (runner, _) = try ChildProcess.spawn(
            sdlabPath, ["run", file], stdout: .null, stderr: .file(folder + "/runner.log"),
            environment: environment(with: ["TMPDIR": runs]))
        var started: [ProcessIdentity] = []
        defer { Self.stopLeftovers(started, runner) }
        // The hook itself is stopped at its 10 s bound, which a loaded machine may reach before
        // the test looks; the children it left in sessions of their own are what the guard is for.
        let noted = try await Self.notedPIDs(["hook", "setsid", "cleared"], inRunsOf: runs)
        let hookProcesses = noted.compactMap { $0 }
        #expect(noted[1] != nil && noted[2] != nil, "the hook's children run: \(noted)")
        started = hookProcesses
        let runFolder = try #require(Self.runFolders(in: runs).first)
        #expect(Self.mode(of: runFolder) == 0o700, "the run folder holds test users' records")
        started += Self.processes(of: runFolder)
        // The guard notes the run's processes every 100 ms or so: a process that cleared its
        // environment and was orphaned before a look noted it is out of its reach. The run is
        // killed once the guard has written that it noted the hook's three.
        try await eventually(within: .seconds(10), "the guard noted the hook and its children \(hookProcesses)") {
            Set(hookProcesses).isSubset(of: DeviceGuard.noted(in: runFolder))
        }
        let children = [noted[1], noted[2]].compactMap { $0 }
        #expect(children.allSatisfy(Self.isAlive), "the hook's children run when the run is killed")

        runner.signal(SIGKILL)
        #expect(runner.exitStatus(timeout: .seconds(5)) == .signaled(SIGKILL))
        do {
            try await eventually(within: .seconds(10), "nothing of the killed run is alive") {
                await offPool { [started] in
                    !started.contains(where: Self.isAlive) && LiveProcesses.mentioning(runFolder).isEmpty
                }
            }
        } catch {
            Issue.record("still alive: \(started.filter(Self.isAlive)) \(LiveProcesses.mentioning(runFolder))")
            throw error
        }
        try await Self.theNextRunRemoves(runFolder, in: runs, scenarioFolder: folder)
    }

    /// A killed run's folder whose app nested folders 2,500 deep (5,000 bytes of path, past
    /// PATH_MAX, which a removal by paths could not reach) is removed by the next run, which says so.
    @Test func aKilledRunsDeepFolderIsRemovedByTheNextRun() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-sigkill-deep")
        defer { try? TreeRemoval.remove(folder) }
        let runs = folder + "/runs"
        try DevicePaths.prepareDirectory(runs)
        let file = try writeScenario(Self.hookThatNestsDeep, named: "deep", in: folder)
        let (runner, _) = try ChildProcess.spawn(
            sdlabPath, ["run", file], stdout: .null, stderr: .file(folder + "/runner.log"),
            environment: environment(with: ["TMPDIR": runs]))
        defer { runner.stop(grace: .seconds(1)) }
        var runFolder = ""
        try await eventually(within: .seconds(90), "the hook nested its folders") {
            guard let found = Self.runFolders(in: runs).first else { return false }
            runFolder = found
            return FileManager.default.fileExists(atPath: RunFolder.container(of: "mail", in: found) + "/nested")
        }
        runner.signal(SIGKILL)
        #expect(runner.exitStatus(timeout: .seconds(5)) == .signaled(SIGKILL))
        try await eventually(within: .seconds(10), "nothing of the killed run is alive") {
            await offPool { [runFolder] in LiveProcesses.mentioning(runFolder).isEmpty }
        }
        let next = try await run(
            sdlabPath, ["run", try writeScenario(Self.quick, named: "quick", in: folder)],
            environment: environment(with: ["TMPDIR": runs]), timeout: .seconds(60))
        #expect(next.status == 0, "\(next.stdout)\(next.stderr)")
        #expect(
            next.stderr.contains("sdlab: removed the folder of a run that was killed: \(runFolder)\n"), "\(next.stderr)"
        )
        #expect(access(runFolder, F_OK) != 0, "\(runFolder) is gone")
    }

    /// The next run removes the killed run's folder and says so, and nothing else: not a folder
    /// whose run still holds its lock, one without the lock file (a finished run's, kept on
    /// purpose), a link, nor a folder of another user.
    static func theNextRunRemoves(_ killed: String, in runs: String, scenarioFolder: String) async throws {
        let live = runs + "/sdlab-run-live"
        let finished = runs + "/sdlab-run-finished"
        let elsewhere = runs + "/elsewhere"
        for kept in [live, finished, elsewhere] { try DevicePaths.prepareDirectory(kept) }
        let lock = try #require(try FileLock.take(live + "/run.lock"))
        defer { lock.release() }
        #expect(FileManager.default.createFile(atPath: elsewhere + "/run.lock", contents: nil))
        try FileManager.default.createSymbolicLink(atPath: runs + "/sdlab-run-link", withDestinationPath: elsewhere)
        let othersFolder = Self.othersFolder(in: runs)
        let next = try await run(
            sdlabPath, ["run", try writeScenario(Self.quick, named: "quick", in: scenarioFolder)],
            environment: environment(with: ["TMPDIR": runs]), timeout: .seconds(60))
        #expect(next.status == 0, "\(next.stdout)\(next.stderr)")
        let removals = next.stderr.split(separator: "\n").filter { $0.contains("removed the folder") }
        #expect(removals == ["sdlab: removed the folder of a run that was killed: \(killed)"], "\(next.stderr)")
        #expect(!FileManager.default.fileExists(atPath: killed))
        let leftAlone = [live, finished, elsewhere + "/run.lock", runs + "/sdlab-run-link", othersFolder]
        for kept in leftAlone.compactMap({ $0 }) {
            #expect(FileManager.default.fileExists(atPath: kept), "\(kept) was left alone")
        }
    }

    /// As root: a folder of another user (nobody) that looks like a killed run's; nil otherwise.
    static func othersFolder(in runs: String) -> String? {
        guard geteuid() == 0 else { return nil }
        let folder = runs + "/sdlab-run-others"
        guard (try? DevicePaths.prepareDirectory(folder)) != nil,
            FileManager.default.createFile(atPath: folder + "/run.lock", contents: nil),
            chown(folder, 65534, 65534) == 0
        else { return nil }
        return folder
    }

    static let quick = """
        apps:
          - {name: mail, sdk: msal, background: true}
        steps:
          - enroll: stage
        """

    /// A scenario whose cleanup hook, at check-in, starts a child in a session of its own
    /// (`setsid`) and one that also clears its environment (`env -i`), then notes the PIDs of
    /// all three in the app's container (`NAME.pid`: a hook writes nowhere else) and sleeps: it
    /// still runs when the run is killed.
    static let hookThatLeavesChildren = hookedMailScenario(
        hook: [
            #"cd "$SDLAB_CONTAINER";"#,
            #"setsid sh -c 'echo $$ > setsid.part; mv setsid.part setsid.pid; exec sleep 300' >/dev/null 2>&1 &"#,
            #"(env -i setsid sh -c 'echo $$ > cleared.part; mv cleared.part cleared.pid; exec sleep 300'"#,
            ">/dev/null 2>&1 &);",
            "echo $$ > hook.part; mv hook.part hook.pid; exec sleep 300",
        ], then: ["- wait: 60s"])

    /// A scenario whose cleanup hook moves the worker's records 2,500 folders deep
    /// (`nestingHook`), says so with `nested`, and sleeps.
    static let hookThatNestsDeep = hookedMailScenario(
        hook: nestingHook(#"mv cou1 "deep/$steps""#, rounds: 4, then: "touch ../nested && exec sleep 300"),
        then: ["- wait: 60s"])

    /// The processes whose PIDs the hook noted in the mail app's container of the run in
    /// `runs`, once it has noted them all; nil for one that no longer runs.
    static func notedPIDs(_ names: [String], inRunsOf runs: String) async throws -> [ProcessIdentity?] {
        var files: [String] = []
        try await eventually(within: .seconds(60), "the hook noted \(names)") {
            guard let runFolder = runFolders(in: runs).first else { return false }
            files = names.map { RunFolder.container(of: "mail", in: runFolder) + "/\($0).pid" }
            return files.allSatisfy { FileManager.default.fileExists(atPath: $0) }
        }
        return try files.map { file in
            let text = try String(contentsOfFile: file, encoding: .utf8)
            let pid = try #require(Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)))
            return ProcessTable.identity(of: pid)
        }
    }

    static func runFolders(in runs: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: runs)) ?? [])
            .filter { $0.hasPrefix("sdlab-run-") }.map { runs + "/" + $0 }
    }

    /// Bus, guard, hub and app: the processes whose command line names the run folder.
    static func processes(of runFolder: String) -> [ProcessIdentity] {
        LiveProcesses.mentioning(runFolder).compactMap { ProcessTable.identity(of: $0.pid) }
    }

    static func mode(of path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
    }

    @Sendable static func isAlive(_ process: ProcessIdentity) -> Bool {
        ProcessTable.identity(of: process.pid) == process
    }

    /// On the way out, whatever the test saw start and still runs, by PID (the same process only).
    static func stopLeftovers(_ processes: [ProcessIdentity], _ runner: ChildProcess) {
        runner.stop(grace: .seconds(1))
        for process in processes where isAlive(process) { kill(process.pid, SIGKILL) }
    }
}
