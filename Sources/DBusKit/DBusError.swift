/// A D-Bus error: an error reply received from a peer, an error to send as a reply, or a local
/// failure named the way libdbus names it.
public struct DBusError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The error name, e.g. `org.freedesktop.DBus.Error.UnknownMethod` or `dev.sdlab.Error.Offline`.
    public let name: String
    /// What went wrong, for a person; may be empty.
    public let message: String

    public init(name: String, message: String = "") {
        self.name = name
        self.message = message
    }

    public var description: String { message.isEmpty ? name : "\(name): \(message)" }

    /// The last component of the name (`Offline` for `dev.sdlab.Error.Offline`).
    public var shortName: Substring { name.split(separator: ".").last ?? Substring(name) }
}

extension DBusError {
    /// The prefix of the standard error names.
    public static let prefix = "org.freedesktop.DBus.Error."

    /// A standard error: `prefix` followed by `short`.
    public static func standard(_ short: String, _ message: String) -> DBusError {
        DBusError(name: prefix + short, message: message)
    }

    public static func failed(_ message: String) -> DBusError { .standard("Failed", message) }
    public static func invalidArgs(_ message: String) -> DBusError { .standard("InvalidArgs", message) }
    public static func unknownMethod(_ message: String) -> DBusError { .standard("UnknownMethod", message) }
    public static func unknownObject(_ message: String) -> DBusError { .standard("UnknownObject", message) }
    public static func unknownInterface(_ message: String) -> DBusError { .standard("UnknownInterface", message) }
    public static func unknownProperty(_ message: String) -> DBusError { .standard("UnknownProperty", message) }
    public static func propertyReadOnly(_ message: String) -> DBusError { .standard("PropertyReadOnly", message) }
    public static func noReply(_ message: String) -> DBusError { .standard("NoReply", message) }
    public static func disconnected(_ message: String) -> DBusError { .standard("Disconnected", message) }
    /// Nobody on the bus under the name called (`isNameGone`).
    public static func serviceUnknown(_ message: String) -> DBusError { .standard("ServiceUnknown", message) }
    public static func noMemory() -> DBusError { .standard("NoMemory", "out of memory") }

    static func invalidSignature(_ text: String, _ why: String) -> DBusError {
        .invalidArgs("invalid signature \"\(text)\": \(why)")
    }
}

extension DBusError {
    /// The bus has nobody under the name called: it left the bus, or was never on it.
    public var isNameGone: Bool {
        name == Self.prefix + "ServiceUnknown" || name == Self.prefix + "NameHasNoOwner"
    }

    /// No answer came: the name is gone, no reply came in time (`Timeout` is the bus's own, for
    /// a call it gave up on), or the connection closed.
    public var isNoAnswer: Bool {
        isNameGone || [Self.prefix + "NoReply", Self.prefix + "Timeout", Self.prefix + "Disconnected"].contains(name)
    }
}
