import DeviceProcesses
import Foundation
import TestSupport
import Testing

/// `sdlab run` as CI runs it: exit codes, expected against actual, and nothing left running.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct RunCommandTests {
    static let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let scenarios = here.appendingPathComponent("Scenarios").path
    static let library = here.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
        "Scenarios"
    ).path

    @Test(.tags(.device), .devicesWanted) func theSideBySideScenarioPasses() async throws {
        let result = try await run(sdlabPath, ["run", Self.library + "/side-by-side-check-in.yaml"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("✓ checkin") && !result.stdout.contains("✗"))
    }

    /// The bus address escapes the run folder's path as the D-Bus specification says: a
    /// TMPDIR with spaces, commas, `=`, `;` and `%` works.
    @Test(.tags(.device), .devicesWanted) func aTemporaryFolderWithSpecialCharactersWorks() async throws {
        let parent = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-special")
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let folder = parent + "/a b,c=d;e%f"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let result = try await run(
            sdlabPath, ["run", Self.library + "/side-by-side-check-in.yaml"],
            environment: environment(with: ["TMPDIR": folder]))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }

    @Test(.tags(.device), .devicesWanted) func aBrokenAppIsCaughtWithExpectedAgainstActual() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-broken")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await run(
            sdlabPath, ["run", Self.scenarios + "/broken-app-leaks.yaml"],
            environment: environment(with: ["TMPDIR": folder]))
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(
            result.stdout.contains("broken-app-leaks.yaml:12:17: hoarder.leaks: expected 0, got 3"), "\(result.stdout)")
        #expect(
            result.stdout.contains("broken-app-leaks.yaml:12:27: hoarder.exposed: expected 0, got 3"),
            "\(result.stdout)")
        #expect(
            result.stdout.contains("run folder kept: \(folder)/sdlab-run-"),
            "a failed run keeps its folder to look into")
        #expect(
            result.stdout.contains("hoarder: leaks 3: cou1 plain ×3 (documents/cou1/plain-1-3.txt)"),
            "the scan by user, kind and file")
        #expect(result.stdout.contains("hoarder: exposed 3 on screen: cou1 ×3"))
    }

    @Test func anInvalidScenarioStopsEverythingBeforeItStarts() async throws {
        let result = try await run(sdlabPath, ["run", Self.scenarios + "/invalid-unknown-app.yaml"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("invalid-unknown-app.yaml:5:13: launch: unknown app mial"), "\(result.stderr)")
        #expect(result.stdout.isEmpty, "nothing ran")
    }

    /// Ctrl-C in the middle of a run: every process the run started is gone when it exits.
    @Test(.tags(.device), .devicesWanted) func anInterruptedRunLeavesNoProcessBehind() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-interrupt")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let runner = try await Self.startLongRun(in: folder)
        defer { runner.stop(grace: .seconds(2)) }
        runner.signal(SIGINT)
        #expect(runner.exitStatus(timeout: .seconds(20)) != nil)
        #expect(Self.processes(mentioning: folder).isEmpty, "\(Self.processes(mentioning: folder))")
    }

    /// `sdlab run long-wait.yaml` with its run folder under `folder`, once its bus, guard, hub
    /// and both apps are up.
    static func startLongRun(in folder: String) async throws -> ChildProcess {
        let (runner, _) = try ChildProcess.spawn(
            sdlabPath, ["run", scenarios + "/long-wait.yaml"], stdout: .null,
            stderr: .null, environment: environment(with: ["TMPDIR": folder]))
        do {
            try await eventually(within: .seconds(30), "both apps are up") {
                processes(mentioning: folder).filter { $0.contains("/sdlab-app ") }.count == 2
            }
        } catch {
            runner.stop(grace: .seconds(2))
            throw error
        }
        let running = processes(mentioning: folder)
        #expect(
            running.count == 5 && running.filter { $0.contains(" guard ") }.count == 1,
            "bus, guard, hub and two apps: \(running)")
        return runner
    }

    /// The command lines of live processes that belong to the run folder `folder`.
    static func processes(mentioning folder: String) -> [String] {
        LiveProcesses.mentioning(folder).map(\.commandLine)
    }
}

extension RunCommandTests {
    @Test(.tags(.device), .devicesWanted) func aRunWritesItsReportsAndJSON() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-report")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let scenario = Self.library + "/side-by-side-check-in.yaml"
        // --junit may name a file in the report folder, which the run makes first.
        let result = try await run(
            sdlabPath,
            [
                "run", scenario, "--report", folder + "/report", "--json",
                "--junit", folder + "/report/ci.xml",
            ])
        #expect(result.status == 0, "\(result.stderr)")
        let document = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(document["passed"] as? Bool == true)
        let scenarios = try #require(document["scenarios"] as? [[String: Any]])
        #expect((scenarios.first?["steps"] as? [Any])?.count == 13)
        #expect(result.stderr.contains("✓ checkin"), "progress goes to stderr with --json")

        let files = try FileManager.default.contentsOfDirectory(atPath: folder + "/report").sorted()
        #expect(files == ["ci.xml", "junit.xml", "report.html", "results.json", "timing.csv", "trace.jsonl"])
        let page = try String(contentsOfFile: folder + "/report/report.html", encoding: .utf8)
        #expect(
            page.contains("<details class=\"scenario\"") && page.contains("session change")
                && page.contains("id=\"timelines\""))
        let junit = try String(contentsOfFile: folder + "/report/junit.xml", encoding: .utf8)
        #expect(junit.contains("<testsuite name=\"Check-in reaches MSAL apps") && junit.contains("failures=\"0\""))
        let trace = try String(contentsOfFile: folder + "/report/trace.jsonl", encoding: .utf8).split(separator: "\n")
        let times = try trace.map {
            try #require((JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["t"] as? Int)
        }
        #expect(
            times == times.sorted() && trace.contains { $0.contains("\"proc\":\"hub\"") }
                && trace.contains { $0.contains("\"proc\":\"mail\"") })
        let csv = try String(contentsOfFile: folder + "/report/timing.csv", encoding: .utf8)
        #expect(csv.hasPrefix("scenario,generation,app,sdk,mechanism,notified_ms,held,exposure_ms,open,run\n"))
        #expect(csv.contains(",mail,msal,signal,") && csv.contains(",cou1/sensitive,"), "\(csv)")
        #expect(page.contains("cleanup that ran") && page.contains("cache-common"), "each app's cleanup as it ran")
    }
}

/// The whole library, as CI would run it, faults and storms included (minutes in a debug build).
@Suite(.tags(.device), .devicesWanted, .timeLimit(.minutes(10))) struct ScenarioLibraryTests {
    @Test func everyScenarioOfTheLibraryPasses() async throws {
        let result = try await run(sdlabPath, ["run", RunCommandTests.library], timeout: .seconds(540))
        #expect(
            result.status == 0,
            "\(result.stdout.split(separator: "\n").filter { $0.contains("✗") || $0.contains(": ") && $0.contains("expected") })"
        )
        let files = try FileManager.default.contentsOfDirectory(atPath: RunCommandTests.library).filter {
            $0.hasSuffix(".yaml")
        }
        #expect(files.count >= 16 && result.stdout.contains("\(files.count) of \(files.count) scenarios passed"))
    }
}

extension RunCommandTests {
    /// A runner killed outright (SIGKILL: nothing of it runs any more) still leaves nothing:
    /// its guard ends every process of the run (`KilledRunTests` for a hook's children).
    @Test(.tags(.device), .devicesWanted) func aKilledRunnerLeavesNoProcessBehind() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-killed")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let runner = try await Self.startLongRun(in: folder)
        defer { runner.stop(grace: .seconds(2)) }
        runner.signal(SIGKILL)
        #expect(runner.exitStatus(timeout: .seconds(5)) == .signaled(SIGKILL))
        do {
            try await eventually(within: .seconds(30), "everything the run started is gone") {
                Self.processes(mentioning: folder).isEmpty
            }
        } catch {
            Issue.record("still running: \(Self.processes(mentioning: folder))")
            throw error
        }
    }

    @Test(.tags(.device), .devicesWanted) func aDyingBusEndsTheRunWithExitThreeAndNothingLeft() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-bus-dies")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let runner = try await Self.startLongRun(in: folder)
        defer { runner.stop(grace: .seconds(2)) }
        let bus = try #require(LiveProcesses.mentioning(folder).first { $0.commandLine.contains("dbus-daemon") }?.pid)
        kill(bus, SIGKILL)
        // The run waits 60 s; it must notice at once (a suspended app cannot notice at all).
        #expect(runner.exitStatus(timeout: .seconds(15)) == .exited(3))
        try await eventually(within: .seconds(30), "everything the run started is gone") {
            Self.processes(mentioning: folder).isEmpty
        }
    }

}

extension RunCommandTests {
    /// Hygiene: whatever a run writes is private to the user, and no password typed on the
    /// device (right or wrong) is in any log, trace, report, state file or container.
    @Test(.tags(.device), .devicesWanted) func aRunKeepsItsFilesPrivateAndNoPasswordInAny() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-hygiene")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await run(
            sdlabPath,
            [
                "run", Self.scenarios + "/secret-passwords.yaml", "--keep", "--report", folder + "/report",
                "--json",
            ], environment: environment(with: ["TMPDIR": folder]), timeout: .seconds(60))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let passwords = ["Stage-Pw-7f3a9c", "Secret-Pw-7f3a9c", "Other-Pw-7f3a9c", "Wrong-Pw-7f3a9c"]
        #expect(passwords.allSatisfy { !result.stdout.contains($0) && !result.stderr.contains($0) })
        let runFolder = try #require(
            try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasPrefix("sdlab-run-") })
        var files = 0
        for path in Self.everything(under: folder) {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            let type = attributes[.type] as? FileAttributeType
            if path.contains(runFolder) {
                let mode = (attributes[.posixPermissions] as? Int ?? 0) & 0o777
                if type == .typeDirectory { #expect(mode == 0o700, "\(path): \(String(mode, radix: 8))") }
                if type == .typeRegular { #expect(mode == 0o600, "\(path): \(String(mode, radix: 8))") }
            }
            guard type == .typeRegular, let bytes = FileManager.default.contents(atPath: path) else { continue }
            files += 1
            let text = String(decoding: bytes, as: UTF8.self)
            for password in passwords { #expect(!text.contains(password), "\(password) in \(path)") }
        }
        #expect(files > 20, "traces, logs, state, containers and reports were all looked through")
    }

    static func everything(under folder: String) -> [String] {
        let paths = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
        return [folder] + paths.map { folder + "/" + $0 }
    }
}
