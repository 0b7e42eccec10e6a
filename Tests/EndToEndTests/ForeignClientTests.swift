import DeviceLaunch
import DeviceProcesses
import Foundation
import HubFiles
import SharedDevice
import TestSupport
import Testing

/// The hub's D-Bus contract (Docs/behaviour.md §1–§3, the contract in Bus/) as a foreign client sees it:
/// `Tests/ForeignClients/hub_contract.py`, run with the system Python and python-dbus against
/// a device set up for each of its profiles. The script prints one line per check and exits
/// 0 only if all held, so a failure here quotes every check.
@Suite(.tags(.device), .devicesWanted, .serialized) struct ForeignClientTests {
    /// …/Tests/EndToEndTests/ForeignClientTests.swift → …/Tests/ForeignClients/hub_contract.py
    static let scriptPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ForeignClients/hub_contract.py").path

    @Test(.timeLimit(.minutes(3)))
    func defaultDeviceKeepsTheWholeContract() async throws {
        try await DetachedDevice.with { device in
            let result = try await Self.runContract("default", environment: device.environment)
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func singleUserDeviceIsPersonalAndRefusesCheckIn() async throws {
        let setup = HubSetup(
            policy: HubModel.Policy(), online: true,
            directory: ConsoleDirectory([
                (DirectoryUser(name: "solo", role: .staging, staging: .singleUser), "solo"),
                (DirectoryUser(name: "cou1"), "cou1"),
            ]))
        let result = try await Self.runContract("single-user", on: setup)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }

    @Test(.timeLimit(.minutes(3)))
    func passcodePolicyAndPostsOnSignIn() async throws {
        let setup = HubSetup(
            policy: HubModel.Policy(broadcastOnSignIn: true, passcode: true), online: true,
            directory: ConsoleDirectory([
                (DirectoryUser(name: "stage", role: .staging), "stage"),
                (DirectoryUser(name: "cou1"), "cou1"),
                (DirectoryUser(name: "cou2"), "cou2"),
            ]))
        let result = try await Self.runContract("passcode-and-sign-in-posts", on: setup)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }

    /// Runs the script for `profile` against the bus in `environment`.
    static func runContract(_ profile: String, environment: [String: String]) async throws -> CommandOutput {
        try await run("/usr/bin/python3", [scriptPath, profile], environment: environment, timeout: .seconds(40))
    }

    /// Runs the script for `profile` against a device of its own started with `setup` (bus and
    /// hub, detached), always stopped and its folder removed afterwards.
    static func runContract(_ profile: String, on setup: HubSetup) async throws -> CommandOutput {
        let directory = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-foreign")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let device = try await RunningDevice.start(in: directory, detached: true, setup: setup, sdlab: sdlabPath)
        defer { device.stop() }
        return try await runContract(
            profile,
            environment: TestSupport.environment(with: [
                "DBUS_SESSION_BUS_ADDRESS": device.bus.address
            ]))
    }
}
