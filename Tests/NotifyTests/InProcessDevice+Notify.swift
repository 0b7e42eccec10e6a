import DBusKit
import DarwinNotify
import DeviceContract
import DeviceProcesses
import DeviceTestKit
import Dispatch
import FacadeCore
import Foundation
import Hub
import HubFiles
import SharedDevice
import Synchronization
import TestSupport
import Testing

/// What the notify tests ask of their device beyond the kit's: processes with a notify
/// client each, as app processes have (two of them play two processes).
extension InProcessDevice {
    /// A process of the device: a connection and a notify client of its own.
    func process(timeout: Duration = .seconds(10), hub: HubAddress = .wellKnown) async throws -> DeviceProcess {
        let connection = try await connection()
        let listener = CountingListener()
        let client = NotifyClient(connection: connection, hub: hub, timeout: timeout, listener: listener)
        return DeviceProcess(connection: connection, client: client, listener: listener)
    }

    /// The hub's state of a name, read directly.
    func hubState(of name: String) async throws -> UInt64? {
        try await console(NotifyMethod.getState, [.string(name)]).first?.uint64
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
    func appCodeReturned(afterCheck: Bool, mayStillRun: Bool) { returned.add(1, ordering: .sequentiallyConsistent) }
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
