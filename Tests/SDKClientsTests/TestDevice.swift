import DBusKit
import DeviceContract
import DeviceProcesses
import Foundation
import Hub
import HubFiles
import SDKClients
import SharedDevice
import Synchronization
import TestSupport
import Testing

/// A device of one test's own: a private dbus-daemon (Bus/device.conf) in a new folder, and the
/// real hub served in this process on a connection of its own, saving every change to a state
/// file in that folder (so it can be stopped and served again from it). The test's
/// `console` connection plays the Workspace ONE console and the Hub app. Every connection is
/// closed, the daemon stopped by its PID and the folder removed afterwards, whatever the test did.
final class TestDevice: Sendable {
    let directory: String
    let bus: BusDaemon
    let console: Connection
    private let policy: HubModel.Policy
    private let hubConnection = Mutex<Connection?>(nil)
    private let appConnections = Mutex<[Connection]>([])

    private init(directory: String, bus: BusDaemon, console: Connection, policy: HubModel.Policy) {
        self.directory = directory
        self.bus = bus
        self.console = console
        self.policy = policy
    }

    static func with(policy: HubModel.Policy = .init(), _ body: (TestDevice) async throws -> Void) async throws {
        let directory = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-sdk")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bus = try await offPool { Result { () throws(LaunchError) in try BusDaemon.start(in: directory) } }.get()
        defer { bus.stop() }
        let console = try await Connection.connect(to: bus.address)
        let device = TestDevice(directory: directory, bus: bus, console: console, policy: policy)
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
        for connection in appConnections.withLock({ $0 }) { await connection.close() }
        await stopHub()
        await console.close()
    }

    // MARK: - The hub

    /// Serves the hub on a new connection, from the state file (a new device the first time).
    func startHub() async throws {
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
    func stopHub() async {
        guard
            let connection = hubConnection.withLock({ hub in
                defer { hub = nil }
                return hub
            })
        else { return }
        await connection.close()
        try? await eventually(within: .seconds(5), "the hub's name released") {
            try await console.nameOwner(DeviceBus.hubName) == nil
        }
    }

    // MARK: - Apps

    /// A connection of an app's own, closed after the test.
    func appConnection() async throws -> Connection {
        let connection = try await Connection.connect(to: bus.address)
        appConnections.withLock { $0.append(connection) }
        return connection
    }

    /// The posts of `name` an app of the device hears, in order, until the subscription is
    /// cancelled.
    func posts(of name: String) async throws -> (AsyncStream<ReceivedPost>, PostSubscription) {
        let (posts, received) = AsyncStream.makeStream(of: ReceivedPost.self)
        let subscription = try await ReceivedPost.observe(name, on: appConnection()) { received.yield($0) }
        return (posts, subscription)
    }

    /// An app's keychain in the device's folder (`containers/APP/keychain`).
    func keychain(_ app: String) throws -> Keychain {
        try Keychain(folder: RunFolder.container(of: app, in: directory) + "/keychain")
    }

    // MARK: - The console and the Hub app

    func enroll() async throws {
        try await console.callHub(HubMethod.enroll, ["stage", "stage"], timeout: .seconds(10))
    }

    func checkOut(_ user: String) async throws {
        try await console.callHub(HubMethod.checkOut, [.string(user), .string(user)], timeout: .seconds(10))
    }

    func checkIn() async throws {
        try await console.callHub(HubMethod.checkIn, timeout: .seconds(10))
    }

    /// Enrolls the device and checks `user` out.
    func enrollAndCheckOut(_ user: String) async throws {
        try await enroll()
        try await checkOut(user)
    }

    func session() async throws -> Session? {
        Session(wire: try await console.callHub(HubMethod.getSession, timeout: .seconds(10)).first)
    }
}

/// The bytes of a file and its inode: an atomic rewrite changes the inode even when the bytes
/// are the same.
struct FileIdentity: Equatable {
    let inode: UInt64
    let contents: Data

    init?(_ path: String) {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let inode = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value,
            let contents = FileManager.default.contents(atPath: path)
        else { return nil }
        self.inode = inode
        self.contents = contents
    }
}

/// The name of the bus error `body` throws (`dev.sdlab.Error.BadCredentials`), nil when it succeeds.
func refusal(_ body: () async throws -> Void) async -> String? {
    do {
        try await body()
        return nil
    } catch let error as DBusError {
        return error.name
    } catch {
        return "\(error)"
    }
}
