import DBusKit
import DeviceProcesses
import Foundation
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

// Shared helpers for the DBusKit tests. Every test runs against a private dbus-daemon of its
// own (Bus/device.conf) and bounds every wait.

let testInterface = "dev.test.Iface"
let testPath: ObjectPath = "/dev/test/Object"
let testName = "dev.test.Service"

// MARK: - Buses and connections

/// Starts a private bus, opens `count` connections to it, runs `body`, then closes every
/// connection whether `body` threw or not.
func withConnections<T>(
    _ count: Int, _ body: (BusDaemon, [Connection]) async throws -> T
) async throws -> T {
    try await BusDaemon.withTemporary { daemon, _ in
        var connections: [Connection] = []
        do {
            for _ in 0..<count { connections.append(try await Connection.connect(to: daemon.address)) }
            let result = try await body(daemon, connections)
            for connection in connections { await connection.close() }
            return result
        } catch {
            for connection in connections { await connection.close() }
            throw error
        }
    }
}

// MARK: - Bounded waits

/// `nameOwnerChanges(of:)` (an opaque, non-Sendable sequence) relayed into an AsyncStream,
/// which `next(_:within:)` can await with a bound. Returns once the bus has the match rule.
func ownerChanges(of name: String, on connection: Connection) async throws -> AsyncStream<Connection.NameOwnerChange> {
    let (stream, continuation) = AsyncStream<Connection.NameOwnerChange>.makeStream()
    let (subscribed, subscription) = AsyncStream<Result<Void, any Error>>.makeStream()
    let task = Task {
        do {
            let changes = try await connection.nameOwnerChanges(of: name)
            subscription.yield(.success(()))
            for await change in changes { continuation.yield(change) }
        } catch {
            subscription.yield(.failure(error))
        }
        continuation.finish()
    }
    continuation.onTermination = { _ in task.cancel() }
    try await next(subscribed).get()
    return stream
}

// MARK: - Objects

/// An interface with one method, `Echo`, that takes and returns `types` (one argument each).
func echoInterface(_ types: Signature, name: String = testInterface) -> DBusInterface {
    let arguments = types.completeTypes.enumerated().map { DBusInterface.Argument("arg\($0.offset)", $0.element) }
    return DBusInterface(
        name,
        methods: [
            .init("Echo", in: arguments, out: arguments) { call in call.arguments }
        ])
}

/// Exports an echo object for `values` on `server` and calls it from `client`.
func echo(_ values: [DBusValue], from client: Connection, to server: Connection) async throws -> [DBusValue] {
    try server.export([echoInterface(values.signature)], at: testPath)
    return try await client.call(
        destination: server.uniqueName, path: testPath, interface: testInterface,
        member: "Echo", values, timeout: .seconds(20))
}

/// The match rules the daemon holds for `uniqueName` (`org.freedesktop.DBus.Debug.Stats`).
func matchRules(of uniqueName: String, askingWith connection: Connection) async throws -> [String] {
    let reply = try await connection.call(
        destination: Connection.busName, path: Connection.busPath, interface: "org.freedesktop.DBus.Debug.Stats",
        member: "GetAllMatchRules", timeout: .seconds(10))
    let byName = try #require(reply.first?.stringKeyed)
    return byName[uniqueName]?.items?.compactMap(\.string) ?? []
}

// MARK: - Shared state for handlers

/// A value handlers (on the connection's thread) and the test share.
final class Locked<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    init(_ value: Value) { storage = Mutex(value) }

    var value: Value { storage.withLock { $0 } }

    @discardableResult
    func update<T: Sendable>(_ change: (inout Value) -> T) -> T { storage.withLock { change(&$0) } }
}
