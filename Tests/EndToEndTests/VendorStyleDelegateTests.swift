import DeviceProcesses
import Foundation
import TestSupport
import Testing

/// A Workspace ONE delegate in the vendor's sample's style, in a device: its `AWLog*` lines reach
/// the app's log, the SDK's account is the checked-out user from the initial check on, and a
/// user change is followed by credentials updated to the new user.
@Suite(.tags(.device), .devicesWanted, .timeLimit(.minutes(2)))
struct VendorStyleDelegateTests {
    @Test func theLogSaysWhatTheSDKToldTheApp() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-vendor")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let executable = TeamAppTests.example("ExampleWS1VendorStyle")
        let scenario = """
            name: a vendor-style Workspace ONE delegate
            apps:
              - {name: field, sdk: ws1, executable: \(executable), cleanup: own}
            steps:
              - enroll: stage
              - checkout: cou1
              - launch: field
              - expect:
                  field: {user: cou1, callbacks: [initial-check]}
              - background: field
              - checkin
              - checkout: cou2
              - foreground: field
              - settle
              - expect:
                  field: {user: cou2, callbacks: [wipe, user-changed]}
            """
        let result = try await run(
            sdlabPath, ["run", "--keep", try writeScenario(scenario, named: "vendor.yaml", in: folder)],
            environment: environment(with: ["TMPDIR": folder]), timeout: .seconds(90))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let runFolder = try #require(
            try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasPrefix("sdlab-run-") })
        let log = try String(contentsOfFile: "\(folder)/\(runFolder)/logs/app-field.log", encoding: .utf8)
        let lines = log.split(separator: "\n").map(String.init).filter { $0.hasPrefix("AWSDK ") }
        func index(_ text: String) -> Int? { lines.firstIndex { $0.contains(text) } }
        // In the order the SDK told them, each with its level and the delegate's place.
        let expected = [
            "AWSDK VERBOSE AppDelegate.swift:", "AWSDK INFO AppDelegate.swift:", "Initial check done",
            "Enrollment status: enrolled", "Account cou1 is the console's user",
            "AWSDK ERROR AppDelegate.swift:", "Application should wipe all secure data", "AWSDK WARNING",
            "User changed", "Updated the credentials for cou2",
        ]
        for text in expected { #expect(index(text) != nil, "\(text) missing from:\n\(log)") }
        let order = [
            "Initial check done", "Enrollment status: enrolled", "wipe all secure data", "User changed",
            "Updated the credentials for cou2",
        ].compactMap(index)
        #expect(order == order.sorted() && order.count == 5, "\(log)")
        #expect(!log.contains("is not the console's user") && !log.contains("holds no account"), "\(log)")
    }
}
