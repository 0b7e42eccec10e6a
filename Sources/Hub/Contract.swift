import DBusKit
import SharedDevice

/// Names and paths of the device's D-Bus contract (SPEC §4), shared by every process.
public enum DeviceBus {
    public static let hubName = "dev.sdlab.Hub"
    public static let hubPath: ObjectPath = "/dev/sdlab/Hub"
    /// Posts are `Posted(name)` signals from this path, whoever sends them.
    public static let notifyPath: ObjectPath = "/dev/sdlab/Notify"
    public static let hubInterface = "dev.sdlab.Hub1"
    public static let brokerInterface = "dev.sdlab.Broker1"
    public static let keyServiceInterface = "dev.sdlab.KeyService1"
    public static let notifyInterface = "dev.sdlab.Notify1"

    /// Posts a notification (notify_post): a `Posted(name)` signal from the notify path, as
    /// anyone may send it. Returns the signal's serial.
    @discardableResult
    public static func post(_ name: String, on connection: Connection) throws(DBusError) -> UInt32 {
        try connection.emitSignal(path: notifyPath, interface: notifyInterface, member: "Posted", [.string(name)])
    }

    /// The rule a receiver of one notification name subscribes with: the bus filters on arg0.
    public static func posts(of name: String) -> MatchRule {
        MatchRule(path: notifyPath, interface: notifyInterface, member: "Posted", arguments: [0: name])
    }
}

extension Connection {
    /// Calls a member of the hub object. An error reply throws its `DBusError`; anything else
    /// (no reply in time, a closed connection, cancellation) is a `DBusError` too.
    @discardableResult
    public func callHub(_ interface: String, _ member: String, _ arguments: [DBusValue] = [],
                        timeout: Duration = .seconds(25)) async throws(DBusError) -> [DBusValue] {
        do {
            return try await call(destination: DeviceBus.hubName, path: DeviceBus.hubPath, interface: interface,
                                  member: member, arguments, timeout: timeout)
        } catch let error as DBusError {
            throw error
        } catch {
            throw DBusError.failed("\(error)")
        }
    }
}

extension DeviceBus {
    /// The session of a `GetSession` reply, `(state, user or "", generation)`.
    public static func session(from reply: [DBusValue]) -> Session? {
        guard let fields = reply.first?.fields, fields.count == 3,
              let state = fields[0].string.flatMap(Session.State.init(rawValue:)), let user = fields[1].string,
              let generation = fields[2].uint64 else { return nil }
        return Session(state: state, user: user.isEmpty ? nil : user, generation: generation)
    }
}

extension DeviceError {
    /// The error as the bus carries it.
    public var dbusError: DBusError { DBusError(name: name, message: message) }

    var message: String {
        switch self {
        case .notStagingUser: "only a staging user can enroll the device"
        case .badCredentials: "bad user name or password"
        case .alreadyEnrolled: "the device is already enrolled"
        case .offline: "the console cannot be reached"
        case .notEnrolled: "the device is not enrolled"
        case .alreadyCheckedOut: "the device is already checked out"
        case .locked: "the device is locked"
        case .notCheckedOut: "the device is not checked out"
        case .notShared: "the device is not shared"
        case .alreadySignedIn: "an account is already signed in"
        case .noCurrentAccount: "no account is signed in"
        case .accountMismatch: "that account is not the signed-in one"
        }
    }
}
