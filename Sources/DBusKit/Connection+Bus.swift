/// The bus daemon's own methods: names and their owners.
extension Connection {
    /// The bus daemon's own name.
    public static let busName = "org.freedesktop.DBus"
    /// The bus daemon's object.
    public static let busPath: ObjectPath = "/org/freedesktop/DBus"

    @discardableResult
    func busCall(_ member: String, _ arguments: [DBusValue] = [], interface: String = Connection.busName) async throws
        -> [DBusValue]
    {
        try await call(
            destination: Connection.busName, path: Connection.busPath, interface: interface,
            member: member, arguments)
    }

    /// How `requestName(_:flags:)` asks for a name.
    public struct NameFlags: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let allowReplacement = NameFlags(rawValue: 0x1)
        public static let replaceExisting = NameFlags(rawValue: 0x2)
        public static let doNotQueue = NameFlags(rawValue: 0x4)
    }

    /// What the bus did with `requestName(_:flags:)`: this connection owns the name, waits for
    /// it, was refused, or already owned it.
    public enum RequestNameReply: UInt32, Sendable {
        case primaryOwner = 1, inQueue = 2, exists = 3, alreadyOwner = 4
    }

    /// Asks the bus for a well-known name. Export objects first.
    public func requestName(_ name: String, flags: NameFlags = [.doNotQueue]) async throws -> RequestNameReply {
        guard DBusNames.isValidBusName(name), !name.hasPrefix(":") else {
            throw DBusError.invalidArgs("invalid well-known name \"\(name)\"")
        }
        let reply = try await busCall("RequestName", [.string(name), .uint32(flags.rawValue)])
        guard let code = reply.first?.uint32, let result = RequestNameReply(rawValue: code) else {
            throw DBusError.failed("unexpected RequestName reply \(reply)")
        }
        return result
    }

    /// Gives up a well-known name.
    public func releaseName(_ name: String) async throws {
        try await busCall("ReleaseName", [.string(name)])
    }

    /// The unique name owning `name`, or nil when nobody does.
    public func nameOwner(_ name: String) async throws -> String? {
        do {
            return try await busCall("GetNameOwner", [.string(name)]).first?.string
        } catch let error as DBusError where error.name == DBusError.prefix + "NameHasNoOwner" {
            return nil
        }
    }

    /// The process ID of the client with this unique name, as the bus knows it.
    public func processID(of uniqueName: String) async throws -> UInt32? {
        try await busCall("GetConnectionUnixProcessID", [.string(uniqueName)]).first?.uint32
    }

    /// A change of a name's owner, from `NameOwnerChanged`.
    public struct NameOwnerChange: Sendable, Equatable {
        public let name: String
        /// Empty when the name had no owner.
        public let oldOwner: String
        /// Empty when the name has no owner any more.
        public let newOwner: String
    }

    /// `NameOwnerChanged` for one name, filtered by the bus on `arg0`.
    public func nameOwnerChanges(of name: String) async throws -> some AsyncSequence<NameOwnerChange, Never> {
        let rule = MatchRule(
            sender: Connection.busName, path: Connection.busPath, interface: Connection.busName,
            member: "NameOwnerChanged", arguments: [0: name])
        return try await signals(matching: rule).compactMap { message -> NameOwnerChange? in
            guard message.body.count == 3, let name = message.body[0].string, let old = message.body[1].string,
                let new = message.body[2].string
            else { return nil }
            return NameOwnerChange(name: name, oldOwner: old, newOwner: new)
        }
    }
}
