import DeviceProcesses
import Foundation
import TestSupport
import Testing

/// iOS background time and the end of a suspended app (Docs/behaviour.md §7), as `sdlab run`
/// carries them out with real processes and signals.
extension RunCommandTests {
    static let backgroundScenarios = [
        "background-msal-app-hears-a-check-in-within-its-grace.yaml",
        "background-grace-0s-leaves-the-data-exposed-until-the-app-returns.yaml",
        "background-task-keeps-an-msal-app-running-for-30s.yaml",
        "terminated-suspended-app-runs-no-code-and-cleans-up-at-launch.yaml",
    ]

    /// The library's scenarios of background time pass; their traces show what the device did:
    /// the task held until its expiration handler ran, and a suspended app ended without
    /// running any code (no `terminated` line of its own).
    @Test(.tags(.device), .devicesWanted) func backgroundTimeAndASuspendedAppsEndGoAsOnIOS() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-background")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await run(
            sdlabPath, ["run", "--keep"] + Self.backgroundScenarios.map { Self.library + "/" + $0 },
            environment: environment(with: ["TMPDIR": folder]), timeout: .seconds(100))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("4 of 4 scenarios passed"), "\(result.stdout)")
        #expect(
            result.stdout.contains("notes was suspended: it was ended without running any code"), "\(result.stdout)")
        let traces = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("sdlab-run-") }
            .map { Self.events(in: RunFolder.trace(of: "notes", in: folder + "/" + $0)) }
        #expect(traces.count == 4)
        // The app holding a task: begun on entering the background, ended by its expiration
        // handler when its time was up, 30 s after it entered the background.
        let held = try #require(traces.first { $0.contains { $0.event == "background-task-began" } })
        let entered = try #require(held.first { $0.event == "background" }?.t)
        let expired = try #require(held.first { $0.event == "background-tasks-expired" }?.t)
        #expect(
            held.map(\.event).filter { $0.hasPrefix("background-task") } == [
                "background-task-began", "background-tasks-expired", "background-task-ended",
            ])
        #expect((29_500_000_000...32_000_000_000).contains(expired - entered), "\(expired - entered) ns")
        // The app terminated while suspended: two launches, and only the second process (ended
        // by the run itself) says terminated.
        let killed = try #require(traces.first { $0.filter { $0.event == "launched" }.count == 2 })
        #expect(killed.filter { $0.event == "terminated" }.count == 1)
        let relaunched = try #require(killed.lastIndex { $0.event == "launched" })
        #expect(!killed[..<relaunched].contains { $0.event == "terminated" || $0.event == "post-received" })
    }

    /// The events of a trace file as (event, t).
    static func events(in file: String) -> [(event: String, t: UInt64)] {
        let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let data = line.trimmingCharacters(in: ["\0"]).data(using: .utf8),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let event = object["event"] as? String, let t = (object["t"] as? NSNumber)?.uint64Value
            else { return nil }
            return (event, t)
        }
    }
}

extension TeamAppTests {
    /// A team's app that begins a background task (UIKit's `beginBackgroundTask`) is not
    /// suspended while it holds it: with no grace at all, the notes app that checks the account
    /// on its way to the background finds the account removed (no post came), cleans up, ends
    /// its task, and only then is suspended.
    @Test(.tags(.device), .devicesWanted) func aTeamsBackgroundTaskKeepsItRunningUntilItEndsIt() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-team-task")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let scenario = """
            name: a team's background task
            device: {background_grace: 0s}
            apps:
              - {name: notes, sdk: msal, executable: \(Self.example("ExampleMSALNotesChecksOnBackground")), cleanup: own}
            steps:
              - enroll: stage
              - checkout: cou1
              - launch: notes
              - write: {app: notes, kind: plain, count: 3}
              - remove-account
              - background: notes
              - settle
              - expect:
                  notes: {state: suspended, user: none, previous: cou1, leaks: 0}
            """
        let result = try await run(
            sdlabPath, ["run", "--keep", try writeScenario(scenario, named: "task.yaml", in: folder)],
            environment: environment(with: ["TMPDIR": folder]), timeout: .seconds(60))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let run = try #require(
            try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasPrefix("sdlab-run-") })
        let events = RunCommandTests.events(in: RunFolder.trace(of: "notes", in: folder + "/" + run)).map(\.event)
        let began = try #require(events.firstIndex(of: "background-task-began"))
        let ended = try #require(events.firstIndex(of: "background-task-ended"))
        #expect(events[began..<ended].contains("cleanup-started"), "\(events)")
    }
}
