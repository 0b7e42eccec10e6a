import DeviceProcesses
import Foundation
import TestSupport
import Testing

/// A scene-based team app (iOS 13 and later) in a device: the host drives its scene delegate at
/// launch, foreground and background, not the app delegate's foreground and background methods,
/// and tells it the device's background time.
extension TeamAppTests {
    /// The library's scene scenario, its executables those of this build: the app that checks
    /// in its scene delegate cleans up on its return to the foreground; the one whose check
    /// stayed in the app delegate keeps the worker's notes, and the run says so.
    @Test(.tags(.device), .devicesWanted) func aSceneBasedAppIsJudgedByWhatItsSceneDelegateDoes() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-scenes")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let library = try String(
            contentsOfFile: RunCommandTests.library + "/team-msal-scenes-app-cleans-up-when-its-scene-returns.yaml",
            encoding: .utf8)
        let scenario = library.replacingOccurrences(of: "../.build/debug/", with: Self.built.path + "/")
        let result = try await run(
            sdlabPath, ["run", try writeScenario(scenario, named: "scenes.yaml", in: folder)],
            environment: environment(with: ["TMPDIR": folder]), timeout: .seconds(90))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")

        // Expecting the broken variant clean fails, naming what it left.
        let strict = scenario.replacingOccurrences(
            of: "app_delegate_checks: {user: cou1, callbacks: [], leaks: 2}",
            with: "app_delegate_checks: {user: none, leaks: 0}")
        #expect(strict != scenario)
        let failed = try await run(
            sdlabPath, ["run", try writeScenario(strict, named: "strict.yaml", in: folder)],
            environment: environment(with: ["TMPDIR": folder]), timeout: .seconds(90))
        #expect(failed.status == 1, "\(failed.stdout)\(failed.stderr)")
        #expect(failed.stdout.contains("app_delegate_checks.leaks: expected 0, got 2"), "\(failed.stdout)")
        #expect(failed.stdout.contains("home/Documents/shift-notes/cou1.txt"), "\(failed.stdout)")
    }

    /// The app's own log shows the scene delegate's calls in iOS's order, none of the app
    /// delegate's foreground method, and the background time the device gives (20 s here, not
    /// iOS's usual 30 s) counted down in `sceneDidEnterBackground`; the task it holds there is
    /// traced, and the app is suspended once it ends it (no grace).
    @Test(.tags(.device), .devicesWanted)
    func theHostDrivesTheSceneDelegateWithTheDevicesBackgroundTime() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-scene-time")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let scenario = """
            name: a scene's lifecycle
            device: {background_grace: 0s, background_task: 20s}
            apps:
              - {name: shifts, sdk: msal, executable: \(Self.example("ExampleMSALScenes")), cleanup: own}
            steps:
              - enroll: stage
              - checkout: cou1
              - launch: shifts
              - background: shifts
              - expect:
                  shifts: {state: suspended}
              - foreground: shifts
              - expect:
                  shifts: {state: foreground, user: cou1}
            """
        let result = try await run(
            sdlabPath, ["run", "--keep", try writeScenario(scenario, named: "time.yaml", in: folder)],
            environment: environment(with: ["TMPDIR": folder]), timeout: .seconds(60))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let run = try #require(
            try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasPrefix("sdlab-run-") })
        let log = try String(contentsOfFile: "\(folder)/\(run)/logs/app-shifts.log", encoding: .utf8)
        let calls = log.split(separator: "\n").compactMap { line in
            Self.sceneCalls.first { line.contains($0) }
        }
        #expect(
            calls == [
                "scene connected: UIWindowSceneSessionRoleApplication", "sceneWillEnterForeground",
                "sceneDidBecomeActive", "sceneWillResignActive",
                "sceneDidEnterBackground: 20 s of background time left", "sceneWillEnterForeground",
                "sceneDidBecomeActive",
            ], "\(log)")
        let events = RunCommandTests.events(in: RunFolder.trace(of: "shifts", in: folder + "/" + run)).map(\.event)
        let background = try #require(events.firstIndex(of: "background"))
        #expect(
            events[background...].filter { $0.hasPrefix("background-task") } == [
                "background-task-began", "background-task-ended",
            ], "\(events)")
    }

    /// What the scene app logs of its lifecycle (and the app delegate's foreground method,
    /// which must never be called).
    static let sceneCalls = [
        "scene connected: UIWindowSceneSessionRoleApplication", "sceneWillEnterForeground", "sceneDidBecomeActive",
        "sceneWillResignActive", "sceneDidEnterBackground: 20 s of background time left", "sceneDidEnterBackground",
        "applicationWillEnterForeground",
    ]
}
