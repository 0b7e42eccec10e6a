import CDBus

#if canImport(Glibc)
    import Glibc
#endif

/// A signal or method call received from the bus, decoded into Swift values. (A reply reaches
/// its caller as values or an error: `outcome(ofReply:)`.)
public struct Message: Sendable {
    /// The four message types of the D-Bus specification.
    public enum Kind: Int32, Sendable {
        case methodCall = 1, methodReturn = 2, error = 3, signal = 4
    }

    public let kind: Kind
    public let serial: UInt32
    public let sender: String?
    public let destination: String?
    public let path: ObjectPath?
    public let interface: String?
    public let member: String?
    public let noReplyExpected: Bool
    /// The body's type, as the header gives it.
    public let signature: Signature
    public private(set) var body: [DBusValue] = []

    /// The header only: the body is decoded by `withBody(of:)`, once someone takes the message.
    init?(decodingHeaderOf raw: OpaquePointer) {
        guard let kind = Kind(rawValue: dbus_message_get_type(raw)) else { return nil }
        self.kind = kind
        serial = dbus_message_get_serial(raw)
        sender = dbus_message_get_sender(raw).map { String(cString: $0) }
        destination = dbus_message_get_destination(raw).map { String(cString: $0) }
        path = dbus_message_get_path(raw).map { ObjectPath(unchecked: String(cString: $0)) }
        interface = dbus_message_get_interface(raw).map { String(cString: $0) }
        member = dbus_message_get_member(raw).map { String(cString: $0) }
        noReplyExpected = dbus_message_get_no_reply(raw) != 0
        signature = Signature(unchecked: dbus_message_get_signature(raw).map { String(cString: $0) } ?? "")
    }

    /// A method return's values, or the error an error reply carries (its message is the
    /// reply's first string argument).
    static func outcome(ofReply raw: OpaquePointer) -> Result<[DBusValue], any Error> {
        let body = Marshal.readBody(of: raw)
        guard dbus_message_get_type(raw) == DBUS_MESSAGE_TYPE_ERROR else { return .success(body) }
        let name = dbus_message_get_error_name(raw).map { String(cString: $0) } ?? DBusError.prefix + "Failed"
        return .failure(DBusError(name: name, message: body.first?.string ?? ""))
    }

    /// This message with its body decoded from `raw`, the message its header came from: all of
    /// it, or its first `count` values. Each unix fd decoded is a new descriptor of this process.
    func withBody(of raw: OpaquePointer, first count: Int = .max) -> Message {
        var message = self
        message.body = Marshal.readBody(of: raw, first: count)
        return message
    }

    /// Closes the unix fds the body carries, however deeply nested: for a message decoded for
    /// nobody (a signal no subscriber matched). Each is a descriptor of this process until closed.
    func closeUnixFDs() {
        for value in body { value.closeUnixFDs() }
    }

    static let localPath = "/org/freedesktop/DBus/Local"
    static let localInterface = "org.freedesktop.DBus.Local"

    var isLocalDisconnect: Bool {
        kind == .signal && interface == Message.localInterface && member == "Disconnected"
    }
}

/// Builders of outgoing libdbus messages. Every name is validated first: libdbus treats a bad
/// name as a programming error.
enum OutgoingMessage {
    static func methodCall(
        destination: String?, path: ObjectPath, interface: String?, member: String,
        body: [DBusValue]
    ) throws(DBusError) -> OpaquePointer {
        if let destination, !DBusNames.isValidBusName(destination) {
            throw .invalidArgs("invalid bus name \"\(destination)\"")
        }
        if let interface, !DBusNames.isValidInterfaceName(interface) {
            throw .invalidArgs("invalid interface name \"\(interface)\"")
        }
        guard DBusNames.isValidMemberName(member) else { throw .invalidArgs("invalid member name \"\(member)\"") }
        guard let message = dbus_message_new_method_call(destination, path.rawValue, interface, member) else {
            throw .noMemory()
        }
        return try withBody(message, body)
    }

    static func signal(
        path: ObjectPath, interface: String, member: String, destination: String? = nil,
        body: [DBusValue]
    ) throws(DBusError) -> OpaquePointer {
        guard DBusNames.isValidInterfaceName(interface) else {
            throw .invalidArgs("invalid interface name \"\(interface)\"")
        }
        guard DBusNames.isValidMemberName(member) else { throw .invalidArgs("invalid member name \"\(member)\"") }
        guard let message = dbus_message_new_signal(path.rawValue, interface, member) else { throw .noMemory() }
        if let destination {
            guard DBusNames.isValidBusName(destination) else {
                dbus_message_unref(message)
                throw .invalidArgs("invalid bus name \"\(destination)\"")
            }
            dbus_message_set_destination(message, destination)
        }
        return try withBody(message, body)
    }

    static func methodReturn(to call: Message, body: [DBusValue]) throws(DBusError) -> OpaquePointer {
        guard let message = dbus_message_new(Message.Kind.methodReturn.rawValue) else { throw .noMemory() }
        address(message, replyingTo: call)
        return try withBody(message, body)
    }

    static func error(to call: Message, _ error: DBusError) -> OpaquePointer? {
        let name = DBusNames.isValidErrorName(error.name) ? error.name : DBusError.prefix + "Failed"
        guard let message = dbus_message_new(Message.Kind.error.rawValue) else { return nil }
        address(message, replyingTo: call)
        dbus_message_set_error_name(message, name)
        let text =
            error.message.utf8.contains(0) ? String(error.message.split(separator: "\0").joined()) : error.message
        // Cut to 4 KiB: a text may quote what the caller sent, and the error must fit in a
        // message whatever the call carried, or the call goes unanswered.
        let short = text.utf8.count <= 4096 ? text : String(decoding: text.utf8.prefix(4000), as: UTF8.self) + "…"
        return try? withBody(message, [.string(short)])
    }

    private static func address(_ message: OpaquePointer, replyingTo call: Message) {
        dbus_message_set_reply_serial(message, call.serial)
        dbus_message_set_no_reply(message, 1)
        if let sender = call.sender { dbus_message_set_destination(message, sender) }
    }

    private static func withBody(_ message: OpaquePointer, _ body: [DBusValue]) throws(DBusError) -> OpaquePointer {
        do {
            _ = try Signature(body.signature.rawValue)  // at most 255 bytes for the whole body
            for value in body { try value.validate() }
            try Marshal.append(body, to: message)
            try checkSize(of: message, body: body)
            return message
        } catch {
            dbus_message_unref(message)
            throw error
        }
    }

    /// The largest message DBusKit sends: the reference dbus-daemon's default max_message_size.
    /// A bus disconnects a connection that sends a larger one, so such a message fails here,
    /// with LimitsExceeded, and the connection stays.
    static let maximumSize = 32 << 20

    /// The body's bound decides for nearly every message; one that may be too large is
    /// measured exactly, by marshalling a copy.
    private static func checkSize(of message: OpaquePointer, body: [DBusValue]) throws(DBusError) {
        // Header fields are names of at most 255 bytes each, but the path.
        let header = 4096 + (dbus_message_get_path(message).map { strlen($0) } ?? 0)
        guard header + body.reduce(0, { $0 + $1.wireSizeBound }) > maximumSize else { return }
        var data: UnsafeMutablePointer<CChar>? = nil
        var length: Int32 = 0
        guard dbus_message_marshal(message, &data, &length) != 0 else { throw .noMemory() }
        dbus_free(data)
        guard Int(length) <= maximumSize else {
            throw .standard(
                "LimitsExceeded", "the message would be \(length) bytes, more than the \(maximumSize) a bus carries")
        }
    }
}
