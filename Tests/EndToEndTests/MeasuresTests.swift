import DeviceProcesses
import Foundation
import TestSupport
import Testing

/// What `sdlab run` reports is what a team acts on: true on broken apps and failing hooks.
@Suite(.tags(.device), .devicesWanted, .serialized, .timeLimit(.minutes(2)))
struct MeasuresTests {
    static let scenarios = RunCommandTests.scenarios
    static let library = RunCommandTests.library

    /// `sdlab run FILE --json` started in `folder`: its exit code, console (stderr) and JSON scenario.
    static func run(_ file: String, from folder: String = NSTemporaryDirectory()) async throws
        -> (status: Int32, console: String, scenario: [String: Any])
    {
        let result = try await TestSupport.run(
            "/bin/sh",
            [
                "-c", "cd \"$1\" && exec \"$2\" run \"$3\" --json", "sh",
                folder, sdlabPath, file,
            ], timeout: .seconds(60))
        let document = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let scenario = try #require(
            (document?["scenarios"] as? [[String: Any]])?.first, "\(result.stdout)\(result.stderr)")
        return (result.status, result.stderr, scenario)
    }

    @Test func aFailingHookIsNeverTimedAsClean() async throws {
        let (status, console, scenario) = try await Self.run(Self.scenarios + "/measures-failing-hook.yaml")
        #expect(status == 1, "\(console)")
        let timing = try #require(scenario["timing"] as? [[String: Any]])
        #expect(timing.count == 1 && timing[0]["count"] as? Int == 1 && timing[0]["open"] as? Int == 1, "\(timing)")
        #expect(timing.allSatisfy { $0["exposure_ms"] is NSNull }, "no pair is clean: \(timing)")
        let open = try #require(scenario["open"] as? [[String: Any]])
        #expect(open.count == 1 && open[0]["generation"] as? Int == 2 && open[0]["held"] as? String == "cou1/plain")
        #expect((open[0]["reason"] as? String)?.contains("exit code 3") == true, "\(open)")
        // The failure is on the console under the step where it surfaced (the check-in, or the
        // settle after it on a slower machine), and among the open pairs.
        let lines = console.split(separator: "\n").map(String.init)
        let checkin = try #require(lines.firstIndex { $0.contains("✓ checkin") })
        let failure = try #require(
            lines.firstIndex { $0.contains("! mail: cleanup (hook echo cleaning; exit 3) for cou1 failed") },
            "\(console)")
        #expect(
            failure == checkin + 1 || (failure == checkin + 2 && lines[checkin + 1].contains("✓ settle")), "\(console)")
        #expect(console.contains("open (another user's data still readable):"))
        #expect(console.contains("generation 2, mail (held cou1/plain): cleanup failed"), "\(console)")
    }

    @Test func aHookThatForgetsCachesLeaksThemFromAnyFolder() async throws {
        for folder in [NSTemporaryDirectory(), Self.scenarios, "/"] {
            let (status, console, scenario) = try await Self.run(
                Self.scenarios + "/measures-hook-forgets-caches.yaml", from: folder)
            #expect(status == 1, "\(console)")
            #expect(
                console.contains(
                    "mail.leaks: expected 0, got 3: cou1 common ×2 (caches/cou1/common-1-2.txt),"
                        + " cou1 preferences ×1 (preferences/cou1.json)"), "from \(folder): \(console)")
            #expect(!console.contains("exit code 127"), "the hook is found from \(folder)")
            let leaks = try #require(
                ((scenario["scan"] as? [String: Any])?["apps"] as? [String: Any])?["mail"] as? [String: Any])
            let found = try #require(leaks["leaks"] as? [[String: Any]])
            #expect(Set(found.compactMap { $0["kind"] as? String }) == ["common", "preferences"])
            #expect(
                Set(found.compactMap { $0["file"] as? String }) == [
                    "caches/cou1/common-1-2.txt", "preferences/cou1.json",
                ])
        }
    }

    @Test func whatAHookDeclaresItKeepsIsRetainedAndTheChangeIsClean() async throws {
        let (status, console, scenario) = try await Self.run(
            Self.scenarios + "/measures-hook-declares-what-it-keeps.yaml")
        #expect(status == 0, "\(console)")
        let timing = try #require(scenario["timing"] as? [[String: Any]])
        #expect(
            timing.count == 1 && timing[0]["open"] as? Int == 0 && timing[0]["exposure_ms"] is [String: Any],
            "\(timing)")
        #expect(console.contains("mail: retained 3: cou1 common ×2 (caches/cou1/common-1-2.txt), cou1 preferences ×1"))
    }

    @Test func identicalFailuresOfAFleetAreOneLineAndALaunchOfARunningAppIsSaid() async throws {
        let (status, console, _) = try await Self.run(Self.scenarios + "/measures-fleet-of-hoarders.yaml")
        #expect(status == 1)
        let failures = console.split(separator: "\n").filter { $0.contains(".leaks: expected 0") }
        #expect(failures.count == 1, "\(console)")
        #expect(
            failures.first?.contains("hoarder1–hoarder5 (5 apps).leaks: expected 0, got 2: cou1 plain ×2") == true,
            "\(console)")
        #expect(console.contains("! hoarder2 was running: launch brought it to the front"), "\(console)")
        #expect(
            console.contains("generation 2, hoarder1–hoarder5 (5 apps) (held cou1/plain): the app ran no cleanup"),
            "\(console)")
    }
}
