import DeviceProcesses
import Foundation
import TestSupport
import Testing

/// An app without an app delegate runs through `DeviceHost.main(app:)` from its `main.swift`: it
/// is told it became active as UIKit tells any app, takes a scenario's records and shows them.
@Suite(.tags(.device), .devicesWanted, .timeLimit(.minutes(2)))
struct MainEntryTests {
    @Test func anAppWithoutADelegateRunsFromMain() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-main-entry")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let executable = TeamAppTests.example("MainSwiftApp")
        let scenario = """
            name: an app without an app delegate
            apps:
              - {name: log, sdk: msal, background: true, executable: \(executable), cleanup: own}
            steps:
              - enroll: stage
              - checkout: cou1
              - launch: log
              - settle
              - expect:
                  log: {user: cou1, callbacks: [current-account(cou1,none)]}
              - write: {app: log, kind: plain, count: 2}
              - expect:
                  log: {records: 2}
            """
        let result = try await run(
            sdlabPath, ["run", try writeScenario(scenario, named: "main-entry", in: folder)],
            environment: environment(with: ["TMPDIR": folder]), timeout: .seconds(90))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }
}
