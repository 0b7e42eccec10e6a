import DBusKit
import DeviceContract
import DeviceProcesses
import Foundation
import TestSupport
import Testing

/// A device started with the real `sdlab device up --detach` in a private folder, always
/// brought down with `sdlab device down` (and its processes stopped by PID if that fails).
struct DetachedDevice {
    let directory: String
    let address: String

    var hubPID: Int32? { recordedPID(RunFolder.hubPID(in: directory)) }
    var busPID: Int32? { recordedPID(RunFolder.busPID(in: directory)) }

    /// Tools started with this environment find the device as `device up` tells users to.
    var environment: [String: String] { TestSupport.environment(with: ["DBUS_SESSION_BUS_ADDRESS": address]) }

    static func with<T>(_ body: (DetachedDevice) async throws -> T) async throws -> T {
        let directory = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-e2e")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let up = try await run(sdlabPath, ["device", "up", "--detach", "--dir", directory])
        try #require(up.status == 0, "device up failed: \(up.stderr)")
        let address = try #require(value(of: "DBUS_SESSION_BUS_ADDRESS", in: up.stdout), "\(up.stdout)")
        #expect(value(of: "SDLAB_DEVICE_DIR", in: up.stdout) == directory)
        let device = DetachedDevice(directory: directory, address: address)
        let started = [device.hubPID, device.busPID].compactMap { $0 }
        defer {
            for pid in started where kill(pid, 0) == 0 { ChildProcess(pid: pid).stop(grace: .seconds(2)) }
        }
        let result = try await body(device)
        let down = try await run(sdlabPath, ["device", "down", "--dir", directory])
        #expect(down.status == 0, "\(down.stderr)")
        return result
    }

    static func value(of key: String, in output: String) -> String? {
        output.split(separator: "\n").first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
    }
}

/// A PID that `device up` recorded in its run folder.
func recordedPID(_ record: String) -> Int32? {
    (try? String(contentsOfFile: record, encoding: .utf8))
        .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
}

/// Whether a process runs no more (a zombie nobody reaped counts as gone).
func isGone(_ pid: Int32) -> Bool { !ChildProcess(pid: pid).isRunning }

/// A connection of the test's own to a device's bus, closed after `body`.
func withBus<T>(_ address: String, _ body: (Connection) async throws -> T) async throws -> T {
    let connection = try await Connection.connect(to: address)
    do {
        let result = try await body(connection)
        await connection.close()
        return result
    } catch {
        await connection.close()
        throw error
    }
}

extension Connection {
    /// Calls a member of the hub object by its names, as any client of the bus would.
    @discardableResult
    func hub(_ interface: String, _ member: String, _ arguments: [DBusValue] = []) async throws -> [DBusValue] {
        try await call(
            destination: DeviceBus.hubName, path: DeviceBus.hubPath, interface: interface, member: member,
            arguments, timeout: .seconds(10))
    }

    /// Enrolls a fresh default device (as `stage`) and checks `user` out (password = name).
    func checkOut(_ user: String) async throws {
        try await hub(HubMethod.interface, "Enroll", ["stage", "stage"])
        try await hub(HubMethod.interface, "CheckOut", [.string(user), .string(user)])
    }

    /// The hub's session as (state, user, generation).
    func session() async throws -> (state: String, user: String, generation: UInt64) {
        let fields = try await hub(HubMethod.interface, "GetSession").first?.fields ?? []
        return (fields[0].string ?? "", fields[1].string ?? "", fields[2].uint64 ?? 0)
    }
}
