import DBusKit
import SharedDevice

extension Connection {
    /// Calls a method of the hub object, found at `hub`. An error reply throws its `DBusError`,
    /// and so does a call that gets no reply in time or whose connection closes; cancellation
    /// stays `CancellationError`.
    @discardableResult
    public func callHub<Method: HubMember>(
        _ method: Method, _ arguments: [DBusValue] = [], at hub: HubAddress = .wellKnown,
        timeout: Duration = .seconds(25)
    ) async throws -> [DBusValue] {
        let call = { (destination: String) in
            try await self.call(
                destination: destination, path: DeviceBus.hubPath, interface: Method.interface,
                member: method.rawValue, arguments, timeout: timeout)
        }
        do {
            let destination = try hub.destination()
            do {
                return try await call(destination)
            } catch let error as DBusError {
                guard let recorded = try hub.destination(after: error, from: destination) else { throw error }
                return try await call(recorded)
            }
        } catch let error as DBusError {
            throw error
        } catch let error as CancellationError {
            throw error
        } catch {
            throw DBusError.failed("\(error)")
        }
    }

    /// `callHub` without a task: `reply` gets the outcome on the connection's owner thread
    /// (see `call(destination:path:interface:member:_:timeout:reply:)`).
    public func callHub<Method: HubMember>(
        _ method: Method, _ arguments: [DBusValue] = [], at hub: HubAddress = .wellKnown,
        timeout: Duration = .seconds(25), reply: @escaping ReplyHandler
    ) {
        @Sendable func call(_ destination: String, then: @escaping ReplyHandler) {
            self.call(
                destination: destination, path: DeviceBus.hubPath, interface: Method.interface,
                member: method.rawValue, arguments, timeout: timeout, reply: then)
        }
        let destination: String
        do { destination = try hub.destination() } catch { return reply(.failure(error)) }
        call(destination) { outcome in
            guard case .failure(let error as DBusError) = outcome else { return reply(outcome) }
            do {
                guard let recorded = try hub.destination(after: error, from: destination) else { return reply(outcome) }
                call(recorded, then: reply)
            } catch {
                reply(.failure(error))
            }
        }
    }

    /// Posts a notification (notify_post): a `Posted(name)` signal from the notify path, as
    /// anyone may send it. Returns the signal's serial.
    @discardableResult
    public func post(_ name: String) throws(DBusError) -> UInt32 {
        try emitSignal(
            path: DeviceBus.notifyPath, interface: NotifyMethod.interface, member: NotifyMethod.posted,
            [.string(name)])
    }
}

extension DeviceBus {
    /// The rule a receiver of one notification name subscribes with: the bus filters on arg0.
    /// A name whose rule would pass the bus's 1,024 bytes (one made mostly of quotes, which a
    /// rule spells in four bytes each) gets every post instead, and the receiver keeps those
    /// of its name (`isPost(_:of:)`): every name of 1 to 511 bytes can be waited for.
    public static func posts(of name: String) -> MatchRule {
        let filtered = MatchRule(
            path: notifyPath, interface: NotifyMethod.interface, member: NotifyMethod.posted, arguments: [0: name])
        guard filtered.text.utf8.count > maxRuleLength else { return filtered }
        return MatchRule(path: notifyPath, interface: NotifyMethod.interface, member: NotifyMethod.posted)
    }

    /// Whether a signal `posts(of: name)` delivered is a post of `name`.
    public static func isPost(_ message: Message, of name: String) -> Bool {
        message.body.first?.string == name
    }

    /// The bus's limit on a match rule (`AddMatch`).
    static let maxRuleLength = 1024
}

/// `org.freedesktop.DBus.Properties`, as the hub object serves it.
public enum PropertiesMethod: String, HubMember, CaseIterable {
    case get = "Get", getAll = "GetAll", set = "Set"
    public static let interface = "org.freedesktop.DBus.Properties"
}

extension Connection {
    /// A property of `dev.sdlab.Hub1`.
    public func hubProperty(
        _ property: HubMethod.Property, at hub: HubAddress = .wellKnown, timeout: Duration = .seconds(25)
    ) async throws -> DBusValue? {
        try await callHub(
            PropertiesMethod.get, [.string(HubMethod.interface), .string(property.rawValue)], at: hub,
            timeout: timeout
        )
        .first?.variant
    }
}
