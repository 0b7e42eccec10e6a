import DBusKit
import DarwinNotify
import DeviceContract
import DeviceProcesses
import Dispatch
import FacadeCore
import Foundation
import Hub
import HubFiles
import SharedDevice
import Synchronization
import TestSupport
import Testing

/// A device of one test's own: a private dbus-daemon (Bus/device.conf) in a new folder and the
/// real hub served in this process. Each `process()` is a connection with its own notify
/// client, as an app process has: two of them play two processes. Every connection is closed,
/// the daemon stopped by its PID and the folder removed afterwards, whatever the test did.
final class NotifyDevice: Sendable {
    let bus: BusDaemon
    /// A connection of the test's own, to look at the bus and the hub directly.
    let console: Connection
    private let hub: Connection
    private let connections = Mutex<[Connection]>([])

    private init(bus: BusDaemon, console: Connection, hub: Connection) {
        self.bus = bus
        self.console = console
        self.hub = hub
    }

    static func with(_ body: (NotifyDevice) async throws -> Void) async throws {
        let directory = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-notify")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bus = try await offPool { Result { () throws(LaunchError) in try BusDaemon.start(in: directory) } }.get()
        defer { bus.stop() }
        let console = try await Connection.connect(to: bus.address)
        let hub = try await Connection.connect(to: bus.address)
        let device = NotifyDevice(bus: bus, console: console, hub: hub)
        do {
            let store = StateFile(path: RunFolder.hubState(in: directory))
            let state = try HubProcess.loadState(from: store) { HubSetup() }
            try await HubProcess.serve(state, savingTo: store, on: hub)
            try await body(device)
        } catch {
            await device.tearDown()
            throw error
        }
        await device.tearDown()
    }

    private func tearDown() async {
        for connection in connections.withLock({ $0 }) { await connection.close() }
        await hub.close()
        await console.close()
    }

    /// A process of the device: a connection and a notify client of its own.
    func process(timeout: Duration = .seconds(10), hub: HubAddress = .wellKnown) async throws -> DeviceProcess {
        let connection = try await connection()
        let listener = CountingListener()
        let client = NotifyClient(connection: connection, hub: hub, timeout: timeout, listener: listener)
        return DeviceProcess(connection: connection, client: client, listener: listener)
    }

    /// A connection of the test's own, closed after it.
    func connection() async throws -> Connection {
        let connection = try await Connection.connect(to: bus.address)
        connections.withLock { $0.append(connection) }
        return connection
    }

    /// The hub's state of a name, read directly.
    func hubState(of name: String) async throws -> UInt64? {
        try await console.callHub(NotifyMethod.getState, [.string(name)], timeout: .seconds(10)).first?.uint64
    }
}

/// One simulated process.
struct DeviceProcess: Sendable {
    let connection: Connection
    let client: NotifyClient
    let listener: CountingListener

    /// Runs a blocking notify call off the cooperative pool, as an app's thread would make it.
    func blocking<T: Sendable>(_ call: @escaping @Sendable (NotifyClient) throws -> T) async throws -> T {
        let client = client
        return try await offPool { Result { try call(client) } }.get()
    }

    /// Registers a dispatch token whose deliveries come out of the returned stream.
    func deliveries(of name: String, on queue: DispatchQueue) async throws -> (token: Int32, stream: Deliveries) {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        let token = try await blocking { client in
            try client.registerDispatch(name, queue: queue) { continuation.yield($0) }
        }
        return (token, Deliveries(stream: stream))
    }
}

/// The deliveries of one token, as they run.
struct Deliveries: Sendable {
    let stream: AsyncStream<Int32>

    /// Waits for the next delivery (at most 10 seconds).
    func next() async throws {
        _ = try await TestSupport.next(stream)
    }
}

/// Counts what the engine tells the host: posts heard, app code returned.
final class CountingListener: DeviceListener {
    let heard = Atomic<Int>(0)
    let returned = Atomic<Int>(0)

    func heardPost(_ name: String, sender: String, serial: UInt32) { heard.add(1, ordering: .sequentiallyConsistent) }
    func checkStarted() {}
    func checkFinished(_ result: CheckResult) {}
    func checkFailed(_ error: String) {}
    func appCodeReturned(afterCheck: Bool) { returned.add(1, ordering: .sequentiallyConsistent) }
    func takeCredentials() -> (user: String, password: String)? { nil }
}

/// Waits until everything queued on `queue` so far has run.
func drain(_ queue: DispatchQueue) async {
    await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
}

/// A name no other test uses.
func uniqueName(_ label: String) -> String {
    "com.contoso.test.\(label).\(UUID().uuidString)"
}

/// A counter shared by a handler and its test.
final class Counter: Sendable {
    private let value = Mutex<[Int32: Int]>([:])

    func add(_ token: Int32) { value.withLock { $0[token, default: 0] += 1 } }
    func count(_ token: Int32) -> Int { value.withLock { $0[token] ?? 0 } }
    var all: [Int32: Int] { value.withLock { $0 } }
}
