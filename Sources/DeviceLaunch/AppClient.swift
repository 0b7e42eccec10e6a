import DBusKit
import DeviceContract
import DeviceProcesses
import Foundation
import SharedDevice

/// Calls to one app's `dev.sdlab.App1`, sent to the bus name of the process launched for it.
public struct AppClient: Sendable {
    public let connection: Connection
    public let name: String
    /// Where calls go: the unique bus name of the process that answered at launch.
    public let destination: String
    public var timeout: Duration

    public init(_ connection: Connection, app: LaunchedApp, timeout: Duration = .seconds(30)) {
        self.connection = connection
        self.name = app.spec.name
        self.destination = app.busName
        self.timeout = timeout
    }

    /// The app's process has left the bus (it ended, or was killed): whoever holds its name now
    /// is not asked.
    public struct AppGone: Error, CustomStringConvertible {
        public let description: String
    }

    @discardableResult
    public func call(_ method: AppBus.Method, _ arguments: [DBusValue] = []) async throws -> [DBusValue] {
        do {
            return try await connection.call(
                destination: destination, path: AppBus.path, interface: AppBus.interface,
                member: method.rawValue, arguments, timeout: timeout)
        } catch let error as DBusError where error.isNameGone {
            throw AppGone(
                description: "\(name) is gone: the process launched for it (bus name \(destination)) has left the bus")
        }
    }

    public func foreground() async throws { try await call(.foreground) }
    public func background() async throws { try await call(.background) }
    /// Told it was continued at `continuedAt` (CLOCK_MONOTONIC ns).
    public func resumed(continuedAt: UInt64) async throws { try await call(.resumed, [.uint64(continuedAt)]) }

    /// The app's background time is up: its tasks' expiration handlers run. Returns how many
    /// tasks they left open. An app built before this call existed answers UnknownMethod, and one
    /// built before it answered a count answers nothing: both count as having ended them.
    public func expireBackgroundTasks() async throws -> Int {
        do {
            return try await call(.expireBackgroundTasks).first?.uint32.map(Int.init) ?? 0
        } catch let error as DBusError where error.name == DBusError.prefix + "UnknownMethod" {
            return 0
        }
    }
    public func settle() async throws { try await call(.settle) }
    public func signOut() async throws { try await call(.signOut) }
    public func signIn(_ user: String, password: String) async throws {
        try await call(.signIn, [.string(user), .string(password)])
    }
    public func unlock(_ user: String, password: String) async throws {
        try await call(.unlock, [.string(user), .string(password)])
    }

    public func write(_ kind: RecordKind, count: Int) async throws {
        try await call(.write, [.string(kind.rawValue), .uint32(UInt32(count))])
    }

    public func snapshot() async throws -> AppSnapshot { AppSnapshot(wire: try await call(.snapshot).first) }
}
