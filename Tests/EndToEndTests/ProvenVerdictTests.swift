import DeviceProcesses
import Foundation
import TestSupport
import Testing

/// A verdict rests on what was proven: a window closes only when a scan that read the whole
/// container found the data gone; an expectation that checks no app is refused; an app whose
/// process ended on its own leaves the run unjudged (exit 3), and a launch after it says so;
/// names reach the terminal with their control characters escaped.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct ProvenVerdictTests {
    /// An app that has used up its file descriptors can neither finish its cleanup nor let its
    /// container be read: the scan after its cleanup proves nothing, so `within` fails with why,
    /// the timing table counts the pair as open, and the runner's own scan names what is left.
    @Test(.tags(.device), .devicesWanted) func aScanThatCouldNotReadTheContainerProvesNothing() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-no-descriptors")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let scenario = TeamAppTests.notesScenario(
            "out of descriptors", app: "ExampleMSALNotes",
            then: """
                  - write: {app: notes, kind: plain, count: 3}
                  - wait: 20s
                  - checkin
                  - settle
                  - expect:
                      notes: {within: 2s}
                """)
        let file = try writeScenario(scenario, named: "descriptors", in: folder)
        // Once the records are written, the app may open nothing more (its limit set to what it
        // holds), as an app that leaks a descriptor per note ends up.
        let ended = try await StreamedRun.run(["run", "--jobs", "1", file], in: folder, once: ["notes": "wrote"]) {
            // The process the app's trace says it launched as.
            let pid = try #require(
                Self.launchedPID(of: "notes", in: folder),
                "no launched event of notes under \(folder): \(Self.listing(folder))")
            let held = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
            let cut = try await run("prlimit", ["--pid", "\(pid)", "--nofile=\(held):\(held)"])
            #expect(cut.status == 0, "\(cut.stderr)")
        }
        #expect(ended.status == .exited(1), "\(ended)")
        let out = ended.stdout
        #expect(out.contains("notes.within: expected ≤ 2000.00 ms, got still open: cleanup failed:"), "\(out)")
        #expect(out.contains("the scan could not read the whole container, so it proves nothing"), "\(out)")
        // The container or what is in it, whichever open met the limit first.
        #expect(out.contains(" cannot be opened: Too many open files"), "\(out)")
        #expect(out.contains("(1 open)"), "the timing table counts the pair as open: \(out)")
        // Whether the app's own removal got through at its limit varies; the runner's scan,
        // which has descriptors, reads what is truly left either way.
    }

    /// `msal:` in a scenario without an MSAL app would hold whatever the apps did: refused by
    /// `check` and before `run` starts anything, naming the group.
    @Test func anExpectationThatChecksNoAppIsRefused() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-no-app")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let scenario = """
            name: checks nothing
            apps:
              - {name: inventory, sdk: ws1}
            steps:
              - enroll: stage
              - checkout: cou1
              - launch: inventory
              - expect:
                  msal: {leaks: 0}
            """
        let file = try writeScenario(scenario, named: "nothing", in: folder)
        let expected = "nothing.yaml:9:7: expect: msal matches no app, so it would check nothing"
        for command in ["check", "run"] {
            let result = try await run(
                sdlabPath, [command, file], environment: environment(with: ["TMPDIR": folder]))
            #expect(result.status == 2, "\(command): \(result.stdout)\(result.stderr)")
            #expect(result.stderr.contains(expected), "\(command): \(result.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).allSatisfy { !$0.hasPrefix("sdlab-run-") })
    }

    /// A team app that exits 0 after it was ready, and an app killed from outside: the run
    /// cannot be judged (exit 3, naming both); the launch after the kill starts the app again
    /// and says it had died, rather than that it brought a running app to the front.
    @Test(.tags(.device), .devicesWanted) func anAppWhoseProcessEndedOnItsOwnLeavesTheRunUnjudged() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-gone")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let scenario = """
            name: apps that end on their own
            apps:
              - {name: quits, sdk: msal, background: true, executable: \(TeamAppTests.example("ExampleMSALNotes")), cleanup: own}
              - {name: killed, sdk: msal, background: true}
            steps:
              - enroll: stage
              - launch: [quits, killed]
              - wait: 20s
              - launch: killed
              - expect:
                  killed: {state: foreground}
            """
        let file = try writeScenario(scenario, named: "gone", in: folder)
        let ended = try await StreamedRun.run(
            ["run", "--jobs", "1", file], in: folder, once: ["quits": "ready", "killed": "ready"]
        ) {
            let apps = LiveProcesses.mentioning(folder)
            let quits = try #require(apps.first { $0.commandLine.contains("--name quits") })
            let killed = try #require(apps.first { $0.commandLine.contains("--name killed") })
            // SIGTERM: the app runs applicationWillTerminate and exits 0, as if it had quit.
            #expect(kill(quits.pid, SIGTERM) == 0 && kill(killed.pid, SIGKILL) == 0)
        }
        #expect(ended.status == .exited(3), "\(ended)")
        let out = ended.stdout
        #expect(
            out.contains(
                "killed was not running: its process had ended (signal 9) though no step ended it; launch started it"
                    + " again (a cold start)"), "\(out)")
        #expect(!out.contains("killed was running"), "\(out)")
        #expect(
            out.contains("quits's process ended (exit code 0) though no step ended it: it is not running now"), "\(out)"
        )
        #expect(out.contains("✓ expect: killed"), "\(out)")
        #expect(
            ended.stderr.contains(
                "killed's process ended (signal 9) after it was ready, though no step ended it; quits's process"
                    + " ended (exit code 0) after it was ready, though no step ended it; the run cannot be judged"),
            "\(ended.stderr)")
        #expect(!out.contains("scenarios passed") || out.contains("0 of 1 scenarios passed"), "\(out)")
        #expect(LiveProcesses.mentioning(folder).isEmpty, "\(LiveProcesses.mentioning(folder))")
    }

    /// A scenario name holding an escape sequence and a carriage return is printed as its
    /// escapes, by `check` and `run`: it can neither recolour the terminal nor rewrite a line.
    @Test(.tags(.device), .devicesWanted) func controlCharactersInAScenarioNameAreEscapedOnTheConsole() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-control")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let scenario = """
            name: "red \\e[31mname\\r1 of 1 scenarios passed\\nforged"
            steps:
              - enroll: stage
              - expect:
                  hub: {user: none}
            """
        let file = try writeScenario(scenario, named: "control", in: folder)
        let shown = #"red \u{1B}[31mname\r1 of 1 scenarios passed\nforged"#
        for command in ["check", "run"] {
            let result = try await run(
                sdlabPath, [command, file], environment: environment(with: ["TMPDIR": folder]))
            let printed = result.stdout + result.stderr
            #expect(!printed.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\r" }, "\(command): \(printed)")
            #expect(result.stdout.contains(shown), "\(command): \(result.stdout)")
        }
    }
}

extension ProvenVerdictTests {
    /// Every path under `folder`, to say what there was.
    static func listing(_ folder: String) -> [String] {
        FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
    }

    /// The PID in the `launched` event of `app`'s trace, in the run folder under `folder`.
    static func launchedPID(of app: String, in folder: String) -> Int32? {
        let runs = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        guard let run = runs.first(where: { $0.hasPrefix("sdlab-run-") }),
            let trace = FileManager.default.contents(atPath: "\(folder)/\(run)/trace/app-\(app).jsonl")
        else { return nil }
        for line in trace.split(separator: UInt8(ascii: "\n")) {
            guard let event = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                event["event"] as? String == "launched", let pid = event["pid"] as? Int
            else { continue }
            return Int32(pid)
        }
        return nil
    }
}

/// `sdlab run` that the test acts on meanwhile: once each app's trace holds its event (read
/// from the run folder, whatever the machine's load does to the run's output), `act` runs, then
/// the run is awaited to its end.
struct StreamedRun: CustomStringConvertible {
    var status: ChildProcess.ExitStatus
    var stdout: String
    var stderr: String

    var description: String { "\(status)\nstdout:\n\(stdout)\nstderr:\n\(stderr)" }

    static func run(
        _ arguments: [String], in folder: String, once events: [String: String], within limit: Duration = .seconds(120),
        act: () async throws -> Void
    ) async throws -> StreamedRun {
        let logs = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-streamed-log")
        defer { try? FileManager.default.removeItem(atPath: logs) }
        let (process, _) = try ChildProcess.spawn(
            sdlabPath, arguments, stdout: .file(logs + "/stdout"), stderr: .file(logs + "/stderr"),
            environment: environment(with: ["TMPDIR": folder]))
        defer { process.stop(grace: .seconds(2)) }
        // Watched from a thread of its own: in a loaded test process the task pool may not run a
        // waiting task for seconds, and the scenario's window (its `wait:`) would pass unseen.
        let seen = await offPool {
            let deadline = ContinuousClock.now + limit
            while !events.allSatisfy({ app, event in traced(event, of: app, in: folder) }) {
                guard ContinuousClock.now < deadline else { return false }
                usleep(10_000)
            }
            return true
        }
        guard seen else {
            let said = (try? String(contentsOfFile: logs + "/stdout", encoding: .utf8)) ?? ""
            throw TimedOut(what: "the events \(events) in the run's traces; the run said:\n\(said)")
        }
        try await act()
        guard let status = await offPool({ process.exitStatus(timeout: .seconds(120)) }) else {
            throw TimedOut(what: "sdlab \(arguments[0]) to end")
        }
        return StreamedRun(
            status: status, stdout: (try? String(contentsOfFile: logs + "/stdout", encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: logs + "/stderr", encoding: .utf8)) ?? "")
    }

    /// Whether `app`'s trace in the run folder under `folder` holds `event`.
    static func traced(_ event: String, of app: String, in folder: String) -> Bool {
        let runs = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return runs.filter { $0.hasPrefix("sdlab-run-") }.contains { run in
            let trace = FileManager.default.contents(atPath: "\(folder)/\(run)/trace/app-\(app).jsonl") ?? Data()
            return String(decoding: trace, as: UTF8.self).contains("\"event\":\"\(event)\"")
        }
    }
}
