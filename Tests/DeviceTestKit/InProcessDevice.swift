import DBusKit
import DeviceContract
import DeviceProcesses
import Foundation
import Hub
import HubFiles
import SharedDevice
import Synchronization
import TestSupport

/// A device of one test's own: a private dbus-daemon (Bus/device.conf) in a new folder, and the
/// real hub served in this process on a connection of its own, saving every change to a state
/// file in that folder (so it can be stopped and served again from it). The test's `console`
/// connection plays the Workspace ONE console and the Hub app. Every connection is closed, the
/// daemon stopped by its PID and the folder removed afterwards, whatever the test did.
public final class InProcessDevice: Sendable {
    public let directory: String
    public let bus: BusDaemon
    public let console: Connection
    private let policy: HubModel.Policy
    private let hubConnection = Mutex<Connection?>(nil)
    private let connections = Mutex<[Connection]>([])

    private init(directory: String, bus: BusDaemon, console: Connection, policy: HubModel.Policy) {
        self.directory = directory
        self.bus = bus
        self.console = console
        self.policy = policy
    }

    /// Runs `body` on a new device whose folder's name starts with `prefix`, then takes it down.
    public static func with(
        prefix: String = "sdlab-device", policy: HubModel.Policy = .init(),
        _ body: (InProcessDevice) async throws -> Void
    ) async throws {
        let directory = try DevicePaths.makeTemporaryDirectory(prefix: prefix)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bus = try await offPool { Result { () throws(LaunchError) in try BusDaemon.start(in: directory) } }.get()
        defer { bus.stop() }
        let console = try await Connection.connect(to: bus.address)
        let device = InProcessDevice(directory: directory, bus: bus, console: console, policy: policy)
        do {
            try await device.startHub()
            try await body(device)
        } catch {
            await device.tearDown()
            throw error
        }
        await device.tearDown()
    }

    private func tearDown() async {
        for connection in connections.withLock({ $0 }) { await connection.close() }
        await stopHub()
        await console.close()
    }

    // MARK: - The hub

    /// Serves the hub on a new connection, from the state file (a new device the first time).
    public func startHub() async throws {
        let store = StateFile(path: RunFolder.hubState(in: directory))
        let state = try HubProcess.loadState(from: store) { HubSetup(policy: policy) }
        let connection = try await Connection.connect(to: bus.address)
        do {
            try await HubProcess.serve(state, savingTo: store, on: connection)
        } catch {
            await connection.close()
            throw error
        }
        hubConnection.withLock { $0 = connection }
    }

    /// Stops the hub (its connection closes, so its name goes) and waits until the bus says the
    /// name has no owner.
    public func stopHub() async {
        guard let connection = hubConnection.withLock({ $0.take() }) else { return }
        await connection.close()
        try? await eventually(within: .seconds(5), "the hub's name released") {
            try await console.nameOwner(DeviceBus.hubName) == nil
        }
    }

    // MARK: - The device's processes

    /// A connection of its own, as an app's or another process's, closed after the test.
    public func connection() async throws -> Connection {
        let connection = try await Connection.connect(to: bus.address)
        connections.withLock { $0.append(connection) }
        return connection
    }

    // MARK: - The console and the Hub app

    /// A call of the console or the Hub app.
    @discardableResult
    public func console<Method: HubMember>(_ method: Method, _ arguments: [DBusValue] = []) async throws -> [DBusValue]
    {
        try await console.callHub(method, arguments, timeout: .seconds(10))
    }

    public func enroll() async throws { try await console(HubMethod.enroll, ["stage", "stage"]) }

    public func checkOut(_ user: String) async throws {
        try await console(HubMethod.checkOut, [.string(user), .string(user)])
    }

    public func checkIn() async throws { try await console(HubMethod.checkIn) }

    /// Enrolls the device and checks `user` out.
    public func enrollAndCheckOut(_ user: String) async throws {
        try await enroll()
        try await checkOut(user)
    }

    public func session() async throws -> Session? { Session(wire: try await console(HubMethod.getSession).first) }
}
