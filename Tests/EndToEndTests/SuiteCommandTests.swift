import DeviceProcesses
import Foundation
import TestSupport
import Testing

/// A suite as CI runs it: scenarios at once, shards, merged reports and a comparison against
/// a saved run.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct SuiteCommandTests {
    static let library = RunCommandTests.library
    static let small = [
        "msal-background-app-cleans-up-on-post", "side-by-side-check-in", "second-check-out-is-refused",
    ]
    .map { library + "/\($0).yaml" }

    static func folder() throws -> String { try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-suite") }

    @Test(.tags(.device), .devicesWanted)
    func scenariosRunAtOnceEachWithItsLinesTogetherAndReportedInOrder() async throws {
        let result = try await run(sdlabPath, ["run", "--jobs", "3", "--json"] + Self.small, timeout: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)")
        // Each scenario's block runs from its title line to its leak scan, with no other title in it.
        let lines = result.stderr.split(separator: "\n").map(String.init)
        let titles = lines.indices.filter { lines[$0].hasSuffix(".yaml)") }
        #expect(titles.count == 3, "\(result.stderr)")
        for (number, start) in titles.enumerated() {
            let end = number + 1 < titles.count ? titles[number + 1] : lines.count
            let block = lines[start..<end]
            #expect(block.filter { $0.contains("  leak scan (hub user") }.count == 1, "\(block)")
            #expect(block.dropFirst().allSatisfy { $0.hasPrefix(" ") || $0.hasSuffix("scenarios passed") }, "\(block)")
        }
        let document = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let files = (document["scenarios"] as? [[String: Any]])?.compactMap { $0["file"] as? String }
        #expect(files == Self.small, "the given order, whatever order they ended in")
    }

    @Test func threeShardsCoverTheLibraryExactlyOnce() async throws {
        let all = try await run(sdlabPath, ["run", "--list", Self.library])
        #expect(all.status == 0)
        let library = all.stdout.split(separator: "\n").map(String.init)
        #expect(library.count > 30)
        var shards: [[String]] = []
        for index in 1...3 {
            let shard = try await run(sdlabPath, ["run", "--list", "--shard", "\(index)/3", Self.library])
            #expect(shard.status == 0, "\(shard.stderr)")
            shards.append(shard.stdout.split(separator: "\n").map(String.init))
        }
        #expect(shards.flatMap { $0 }.sorted() == library.sorted())
        #expect(Set(shards.flatMap { $0 }).count == library.count, "disjoint")
        #expect(shards.allSatisfy { abs($0.count - library.count / 3) <= 1 })
    }

    @Test func filtersAndTagsChooseAndAChoiceOfNothingIsAUsageError() async throws {
        let fleet = try await run(sdlabPath, ["run", "--list", "--tag", "fleet", "--skip-tag", "slow", Self.library])
        #expect(fleet.status == 0)
        #expect(fleet.stdout.split(separator: "\n").allSatisfy { $0.contains("fleet") }, "\(fleet.stdout)")
        #expect(!fleet.stdout.contains("storm"))
        let none = try await run(sdlabPath, ["run", "--filter", "no-such-scenario", Self.library])
        #expect(none.status == 2 && none.stderr.contains("no scenario matches"), "\(none.stderr)")
        let badShard = try await run(sdlabPath, ["run", "--shard", "4/3", Self.library])
        #expect(badShard.status == 2 && badShard.stderr.contains("--shard takes K/N"), "\(badShard.stderr)")
    }

    /// Two shards with their reports, merged: one report of both, as one run would give.
    @Test(.tags(.device), .devicesWanted) func shardsReportsMergeIntoOne() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let two = Array(Self.small.prefix(2))
        for index in 1...2 {
            let shard = try await run(
                sdlabPath, ["run", "--shard", "\(index)/2", "--report", folder + "/shard\(index)"] + two,
                timeout: .seconds(60))
            #expect(shard.status == 0, "\(shard.stdout)\(shard.stderr)")
        }
        let merge = try await run(
            sdlabPath, ["report", "merge", folder + "/merged", folder + "/shard1", folder + "/shard2"])
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(merge.stderr.contains("2 of 2 scenarios passed"), "\(merge.stderr)")
        let document = try #require(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/merged/results.json")))
                as? [String: Any])
        #expect((document["scenarios"] as? [[String: Any]])?.compactMap { $0["file"] as? String } == two)
        let junit = try String(contentsOfFile: folder + "/merged/junit.xml", encoding: .utf8)
        #expect(junit.components(separatedBy: "<testsuite ").count == 3)
        let page = try String(contentsOfFile: folder + "/merged/report.html", encoding: .utf8)
        #expect(page.contains("2 of 2 scenarios passed"))
        let trace = try String(contentsOfFile: folder + "/merged/trace.jsonl", encoding: .utf8)
        #expect(two.allSatisfy { file in trace.contains("\"scenario_file\":\"\(file)\"") })

        let twice = try await run(
            sdlabPath, ["report", "merge", folder + "/again", folder + "/shard1", folder + "/shard1"])
        #expect(twice.status == 2 && twice.stderr.contains("is in both"), "\(twice.stderr)")
    }

    /// A saved run against a new one: the same scenario gives no regression; a copy whose
    /// exposures are ten times larger gives one, and exit 1.
    /// An input that is missing is an error naming it, for `compare` and `report merge` alike.
    @Test func aMissingRunOrReportIsAnError() async throws {
        let merged = try await run(sdlabPath, ["report", "merge", "/nonexistent/out", "/nonexistent/shard"])
        #expect(merged.status == 2)
        #expect(
            merged.stderr.contains("cannot read /nonexistent/shard/results.json: No such file or directory"),
            "\(merged.stderr)")
        let compared = try await run(sdlabPath, ["compare", "/nonexistent/base.json", "/nonexistent/new.json"])
        #expect(compared.status == 2)
        #expect(compared.stderr.contains("cannot read /nonexistent/base.json: No such file or directory"))
    }

    /// Output that cannot be written (a full disk, a closed stdout) ends the command with exit
    /// 3 and says so on stderr, never with a crash signal.
    @Test func outputThatCannotBeWrittenIsExit3() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-full")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (checker, _) = try ChildProcess.spawn(
            sdlabPath, ["check", RunCommandTests.library + "/side-by-side-check-in.yaml"], stdout: .file("/dev/full"),
            stderr: .file(folder + "/stderr"))
        #expect(checker.exitStatus(timeout: .seconds(20)) == .exited(3))
        let said = try String(contentsOfFile: folder + "/stderr", encoding: .utf8)
        #expect(said.contains("sdlab: cannot write to standard output: No space left on device"), "\(said)")
    }

    /// A report path that is a device is written to, never replaced by a rename; a link is
    /// refused, never written through.
    @Test(.tags(.device), .devicesWanted) func aReportPathThatIsNoFileIsWrittenToOrRefused() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-junit")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let scenario = RunCommandTests.library + "/side-by-side-check-in.yaml"
        let full = try await run(sdlabPath, ["run", scenario, "--junit", "/dev/full"], timeout: .seconds(60))
        #expect(full.status == 3)
        #expect(full.stderr.contains("cannot write /dev/full: No space left on device"), "\(full.stderr)")
        var info = stat()
        #expect(lstat("/dev/full", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR, "still the device")
        let link = folder + "/junit.xml"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: folder + "/elsewhere.xml")
        let linked = try await run(sdlabPath, ["run", scenario, "--junit", link], timeout: .seconds(60))
        #expect(linked.status == 3)
        #expect(linked.stderr.contains("is a link: not written through it"), "\(linked.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/elsewhere.xml"))
    }

    /// The gate is judged on timings made from one real run's own file, never on two real runs:
    /// how far two runs' timings differ is the machine's load, not the tool's.
    @Test(.tags(.device), .devicesWanted) func compareGatesOnARegression() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await run(
            sdlabPath, ["run", "--repeat", "5", "--jobs", "2", "--json", Self.small[0]], timeout: .seconds(90))
        #expect(result.status == 0, "\(result.stderr)")
        let base = folder + "/base.json"
        try result.stdout.write(toFile: base, atomically: true, encoding: .utf8)
        /// The saved run with every exposure changed by `change`, written as NAME.json.
        func exposures(_ name: String, _ change: (Double) -> Double) throws -> String {
            var run = try #require(
                JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: base))) as? [String: Any])
            var scenarios = try #require(run["scenarios"] as? [[String: Any]])
            scenarios[0]["pairs"] = (scenarios[0]["pairs"] as? [[String: Any]])?.map { pair in
                var pair = pair
                if let exposure = pair["exposure_ms"] as? Double { pair["exposure_ms"] = change(exposure) }
                return pair
            }
            run["scenarios"] = scenarios
            let path = folder + "/\(name).json"
            try JSONSerialization.data(withJSONObject: run).write(to: URL(fileURLWithPath: path))
            return path
        }

        let same = try await run(sdlabPath, ["compare", base, try exposures("same") { $0 }])
        #expect(same.status == 0, "\(same.stdout)\(same.stderr)")
        #expect(same.stdout.contains("msal signal exposure") && same.stdout.contains("n = 5 and 5"), "\(same.stdout)")
        #expect(same.stdout.hasSuffix("no regression\n"))

        // The median 15 ms slower stays under a floor of 20 ms, however far the samples spread.
        let slightlySlower = try exposures("slightly-slower") { $0 + 15 }
        let underFloor = try await run(sdlabPath, ["compare", "--min-ms", "20", base, slightlySlower])
        #expect(underFloor.status == 0, "\(underFloor.stdout)\(underFloor.stderr)")
        #expect(underFloor.stdout.hasSuffix("no regression\n"))

        let regressed = try await run(sdlabPath, ["compare", base, try exposures("slower") { $0 * 10 }])
        #expect(regressed.status == 1, "\(regressed.stdout)\(regressed.stderr)")
        #expect(regressed.stdout.contains("regression  "), "\(regressed.stdout)")
        #expect(regressed.stdout.hasSuffix("1 regression\n"))

        let unreadable = try await run(sdlabPath, ["compare", base, folder + "/none.json"])
        #expect(unreadable.status == 2 && unreadable.stderr.contains("cannot read"), "\(unreadable.stderr)")
    }
}

/// Writes `scenario` as `name.yaml` in `folder` and runs it with `sdlab run`, its run folder
/// under `folder` too (TMPDIR), so a test can look for whatever the run left behind there.
func runScenario(_ scenario: String, named name: String, in folder: String) async throws -> CommandOutput {
    try await run(
        sdlabPath, ["run", writeScenario(scenario, named: name, in: folder)],
        environment: environment(with: ["TMPDIR": folder]), timeout: .seconds(60))
}

/// Writes `scenario` as `NAME.yaml` in `folder` and gives the file's path.
func writeScenario(_ scenario: String, named name: String, in folder: String) throws -> String {
    let file = folder + "/\(name).yaml"
    try scenario.write(toFile: file, atomically: true, encoding: .utf8)
    return file
}

/// A launch that fails says why: an executable that exits at once is reported as ended, with
/// its status, rather than as "not ready" when the 15 s bound runs out (which is what the
/// message would say had the runner waited for it).
@Suite(.tags(.device), .devicesWanted) struct LaunchFailureTests {
    @Test func anAppThatExitsAtOnceIsToldAsEndedWithItsStatus() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-false")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A script, which `check` lets through (it may start an app); a program that serves no
        // app interface is refused before the run (TeamAppTests).
        let script = folder + "/exits-at-once.sh"
        try Data("#!/bin/sh\nexit 1\n".utf8).write(to: URL(fileURLWithPath: script))
        chmod(script, 0o755)
        let result = try await runScenario(
            """
            apps:
              - {name: broken, sdk: msal, executable: \(script)}
            steps:
              - launch: broken
            """, named: "false", in: folder)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(
            result.stdout.contains("the app broken did not start: it ended (exit code 1) before it was ready"),
            "\(result.stdout)")
    }
}

extension LaunchFailureTests {
    /// Before: past the limit of open files, an app failed to connect with the bus's own
    /// "Too many open files", which says neither what to change nor by how much. The runner
    /// (two pipes an app) runs out before the bus (one connection an app).
    @Test func aFleetOverTheLimitOfOpenFilesIsToldSoBeforeTheBusRunsOut() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-nofile")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = try writeScenario(
            """
            apps:
              - {name: fleet, count: 30, sdk: msal, background: true}
            steps:
              - launch: all
            """, named: "nofile", in: folder)
        let result = try await run(
            "/usr/bin/prlimit", ["--nofile=40:40", sdlabPath, "run", file],
            environment: environment(with: ["TMPDIR": folder]), timeout: .seconds(90))
        // The launch fails; the runner, left at its limit by the apps it did launch, may then be
        // unable to read every container, which it says (exit 3) rather than passing over.
        let launchLine = result.stdout.split(separator: "\n").first { $0.contains("launch fleet") } ?? ""
        #expect(
            launchLine.contains("open files in the runner, over this machine's limit of 40 (`ulimit -Hn`)"),
            "\(result.stdout)")
        #expect(!launchLine.contains("Too many open files"), "\(result.stdout)")
        #expect(
            result.status == 1 || (result.status == 3 && result.stdout.contains("not read:")),
            "\(result.stdout)\(result.stderr)")
    }

    @Test func anAppThatSaysReadyWithoutItsBusNameFailsAtLaunch() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-nameless")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let app = folder + "/nameless.sh"
        // It says ready where the runner listens (`--ready-fd 3`), and nothing else.
        try AppGroupTests.writeExecutable(app, "#!/bin/sh\necho ready >&3\nexec sleep 30\n")
        let result = try await runScenario(
            """
            apps:
              - {name: nameless, sdk: msal, executable: \(app)}
            steps:
              - launch: nameless
              - settle
            """, named: "nameless", in: folder)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(
            result.stdout.contains("launch nameless: it said ready but does not own dev.sdlab.App.nameless on the bus"),
            "\(result.stdout)")
    }
}

/// A `settle` that runs out names the apps still busy, and why. Its bound leaves a quick app
/// seconds to settle on a busy machine, and the slow app's hook outlasts it by as much.
@Suite(.tags(.device), .devicesWanted) struct SettleFailureTests {
    @Test func theAppsStillBusyAreNamed() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-unsettled")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await runScenario(
            """
            apps:
              - {name: quick, sdk: msal, background: true}
              - {name: slow, sdk: msal, background: true, cleanup: {hook: sleep 20}}
            steps:
              - enroll: stage
              - checkout: cou1
              - launch: [quick, slow]
              - write: {app: slow, kind: plain, count: 1}
              - checkin
              - settle: 8s
            """, named: "slow", in: folder)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let failure = try #require(result.stdout.split(separator: "\n").first { $0.contains("not settled within") })
        #expect(failure.contains("slow.yaml:10:5: not settled within 8.0 seconds: slow: "), "\(failure)")
        #expect(!failure.contains("quick"), "the app that settled is not named: \(failure)")
    }
}

/// What an app started dies with it: an app run through a launcher script that leaves a
/// child behind in its process group leaves nothing once the run is over.
@Suite(.tags(.device), .devicesWanted) struct AppGroupTests {
    /// Written through a close-on-exec descriptor: a process another test forks meanwhile
    /// must not inherit it open for writing, or executing the file fails (`Text file busy`).
    static func writeExecutable(_ path: String, _ text: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        try #require(fd >= 0)
        defer { close(fd) }
        let bytes = Array(text.utf8)
        try #require(write(fd, bytes, bytes.count) == bytes.count)
    }

    @Test func aLauncherScriptsChildEndsWithTheRun() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-launcher")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let app = (sdlabPath as NSString).deletingLastPathComponent + "/sdlab-app"
        try Self.writeExecutable(
            folder + "/launcher.sh",
            """
            #!/bin/sh
            sh -c 'while :; do sleep 1; done' "$0" &
            exec "\(app)" "$@"
            """)
        let result = try await runScenario(
            """
            apps:
              - {name: mail, sdk: msal, background: true, executable: ./launcher.sh}
            steps:
              - launch: mail
              - settle
            """, named: "launcher", in: folder)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(LiveProcesses.mentioning(folder).isEmpty, "\(LiveProcesses.mentioning(folder))")
    }

    /// Before: a hook's child that called `setsid` was in no group of ours and outlived the run.
    /// The hook waits until the child has left its group (else the group's end would take it).
    @Test func aHookChildThatLeavesItsGroupEndsWithTheRun() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-setsid")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await runScenario(
            hookedMailScenario(
                hook: [
                    #"setsid sh -c 'touch "$SDLAB_CONTAINER/left"; exec sleep 300' >/dev/null 2>&1 &"#,
                    #"while [ ! -e "$SDLAB_CONTAINER/left" ]; do sleep 0.05; done;"#,
                    #"rm -rf "$SDLAB_CONTAINER/documents/$SDLAB_PREVIOUS_USER""#,
                ], then: ["- settle"]), named: "setsid", in: folder)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        // SIGKILL is delivered at once; a process may take a moment to be gone on a busy machine.
        try await eventually("the hook's child is gone") { LiveProcesses.mentioning(folder).isEmpty }
    }

    /// Before: a hook's child that left its group and cleared its environment named nothing of
    /// the run, so nothing found it, and it outlived the run. It is now the runner's child once
    /// its hook ends (the runner is a child subreaper) and is stopped when the run ends.
    @Test func aHookChildThatLeavesItsGroupAndItsEnvironmentEndsWithTheRun() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-escape")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // The hook notes the child's PID in the container (a hook writes nowhere else), which
        // --keep keeps for the test to read.
        let scenario = hookedMailScenario(
            hook: [
                #"(cd "$SDLAB_CONTAINER" && env -i setsid sh -c 'echo $$ > escaped.pid.part;"#,
                #"mv escaped.pid.part escaped.pid; exec sleep 300' >/dev/null 2>&1 &)"#,
                #"; while [ ! -e "$SDLAB_CONTAINER/escaped.pid" ]; do sleep 0.05; done;"#,
                #"rm -rf "$SDLAB_CONTAINER/documents/$SDLAB_PREVIOUS_USER""#,
            ], then: ["- settle"])
        let result = try await run(
            sdlabPath, ["run", "--keep", try writeScenario(scenario, named: "escape", in: folder)],
            environment: environment(with: ["TMPDIR": folder]), timeout: .seconds(60))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let runFolder = try #require(
            try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasPrefix("sdlab-run-") })
        let pidFile = RunFolder.container(of: "mail", in: folder + "/" + runFolder) + "/escaped.pid"
        let text = try String(contentsOfFile: pidFile, encoding: .utf8)
        let escaped = try #require(Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        let running = ChildProcess(pid: escaped).isRunning
        if running { kill(escaped, SIGKILL) }
        #expect(!running, "the hook's child \(escaped) outlived the run")
    }
}

/// The end of a run with apps that do not answer (Docs/outputs.md).
@Suite(.tags(.device), .devicesWanted) struct HungAppsAtTheEndTests {
    /// Before: the end-of-run snapshots were asked one app after another, 30 s each, so three
    /// hung apps took 90 s after the 10 s `settle` (past this test's 60 s bound). Now they are
    /// asked at once, 30 s in all, and each hung app's exposure is told as unknown, not as none.
    @Test func hungAppsCostTheEndOfARunOneBoundInAllAndAreToldAsUnknown() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-hung")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Each app's cleanup stops the app itself (its hook's parent): a hung app.
        let result = try await runScenario(
            """
            apps:
              - {name: hung, count: 3, sdk: msal, background: true, cleanup: {hook: 'kill -STOP $PPID'}}
            steps:
              - enroll: stage
              - checkout: cou1
              - launch: all
              - checkin
              - settle: 10s
            """, named: "hung", in: folder)
        // Settling cannot succeed: an app's cleanup ends only after its hook stopped the app.
        #expect(result.status == 1 && result.stdout.contains("not settled within 10.0 seconds"), "\(result.stdout)")
        for app in ["hung1", "hung2", "hung3"] {
            #expect(result.stdout.contains("\(app): exposed unknown: no snapshot within 30"), "\(result.stdout)")
        }
    }
}

/// A failed step is told with what the hub did, not only with what its reply said.
@Suite(.tags(.device), .devicesWanted) struct FailedStepReconciliationTests {
    /// Before: the run reported the step's failure only, although the hub had committed it.
    @Test func aFailedStepThatTheHubCarriedOutIsToldAsCommitted() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-committed")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await runScenario(
            """
            steps:
              - enroll: stage
              - checkout: {user: cou1, password: cou1, error: BadCredentials}
            """, named: "committed", in: folder)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("the hub after the failed step"), "\(result.stdout)")
        #expect(
            result.stdout.contains("the hub committed checked-out (user cou1, generation 1)"), "\(result.stdout)")
    }

    /// Before: with the bus stopped, a check-in timed out and the run said only that it failed
    /// (and the hub's user was still cou1); once the bus went on, the hub carried it out.
    @Test func aCheckInThatTimedOutBehindAHungBusIsToldAsCommittedOnceTheBusGoesOn() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-hung-bus")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let printed = folder + "/printed.txt"
        // The wait is the window in which the test stops the bus, between the two changes.
        let scenario = try writeScenario(
            """
            steps:
              - enroll: stage
              - checkout: cou1
              - wait: 10s
              - checkin
            """, named: "hung-bus", in: folder)
        let (runner, _) = try ChildProcess.spawn(
            sdlabPath, ["run", "--jobs", "1", scenario], stdout: .file(printed), stderr: .null,
            environment: environment(with: ["TMPDIR": folder]))
        defer { runner.stop(grace: .seconds(2)) }
        let output = { @Sendable in (try? String(contentsOfFile: printed, encoding: .utf8)) ?? "" }
        // Watched from a thread of its own, from the stop to the continue: beside the whole
        // suite, the test's task may wait seconds for a turn, and a window would pass (the
        // runner gives the hub 30 s to answer once the check-in failed).
        let stopped = await offPool { () -> (bus: Int32, inTime: Bool, continued: Bool)? in
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                if output().contains("✓ checkout"),
                    let bus = LiveProcesses.mentioning(folder).first(where: { $0.commandLine.contains("dbus-daemon") })
                {
                    kill(bus.pid, SIGSTOP)
                    let inTime = !output().contains("✓ wait")
                    let failedBy = ContinuousClock.now + .seconds(60)
                    while !output().contains("✗ checkin"), ContinuousClock.now < failedBy { usleep(10_000) }
                    kill(bus.pid, SIGCONT)
                    return (bus.pid, inTime, output().contains("✗ checkin"))
                }
                usleep(10_000)
            }
            return nil
        }
        let bus = try #require(stopped, "the check-out is done and the bus found").bus
        defer { kill(bus, SIGCONT) }
        #expect(stopped?.inTime == true, "the bus was stopped before the check-in was sent")
        #expect(stopped?.continued == true, "the check-in timed out")
        #expect(await offPool { runner.exitStatus(timeout: .seconds(60)) } == .exited(1), "\(output())")
        #expect(output().contains("the hub after the failed step: checkin"), "\(output())")
        #expect(output().contains("the hub committed checked-in (user none, generation 2)"), "\(output())")
    }
}
