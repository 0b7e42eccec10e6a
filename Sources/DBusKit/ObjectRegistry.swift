import CDBus

/// Exported objects of one connection, part of its locked state.
struct ObjectRegistry {
    private(set) var interfacesByPath: [ObjectPath: [DBusInterface]] = [:]

    mutating func add(_ interfaces: [DBusInterface], at path: ObjectPath) throws(DBusError) {
        guard interfacesByPath[path] == nil else { throw .failed("an object is already exported at \(path)") }
        let names = interfaces.map(\.name)
        guard Set(names).count == names.count else { throw .failed("an interface is declared twice at \(path)") }
        guard !names.contains(where: StandardInterfaces.names.contains) else {
            throw .failed("standard interfaces are provided by DBusKit")
        }
        interfacesByPath[path] = interfaces
    }

    /// Returns what it removes, to be released after the lock: a handler's captures may use
    /// the connection when they go.
    mutating func remove(_ path: ObjectPath) -> [DBusInterface]? { interfacesByPath.removeValue(forKey: path) }

    /// The names of the nodes directly below `path`, for `<node name=…/>` elements.
    func children(of path: ObjectPath) -> [String] {
        let prefix = path.rawValue == "/" ? "/" : path.rawValue + "/"
        var names = Set<String>()
        for candidate in interfacesByPath.keys where candidate.rawValue.hasPrefix(prefix) && candidate != path {
            let rest = candidate.rawValue.dropFirst(prefix.count)
            if let first = rest.split(separator: "/").first { names.insert(String(first)) }
        }
        return names.sorted()
    }

    /// The interfaces a call to `path` may reach, standard ones first; nil when nothing is there.
    func dispatchTable(for path: ObjectPath) -> [DBusInterface]? {
        if let interfaces = interfacesByPath[path] { return StandardInterfaces.forObject + interfaces }
        return children(of: path).isEmpty ? nil : StandardInterfaces.forIntermediateNode
    }

    /// The method a call names, from its header, or the standard error to answer with.
    func method(for message: Message) throws(DBusError) -> DBusInterface.Method {
        let member = message.member ?? ""
        let table: [DBusInterface]
        if message.interface == StandardInterfaces.peer.name {
            table = [StandardInterfaces.peer]
        } else if let path = message.path, let found = dispatchTable(for: path) {
            table = found
        } else {
            throw .unknownObject("no object at \(message.path?.rawValue ?? "(none)")")
        }
        let method: DBusInterface.Method?
        if let name = message.interface {
            guard let interface = table.first(where: { $0.name == name }) else {
                throw .unknownInterface("no interface \(name) at \(message.path?.rawValue ?? "/")")
            }
            method = interface.method(named: member)
        } else {
            method = table.lazy.compactMap { $0.method(named: member) }.first
        }
        guard let method else {
            throw .unknownMethod(
                "no method \(member) on \(message.interface ?? "any interface") at \(message.path?.rawValue ?? "/")")
        }
        guard message.signature == method.inputSignature else {
            throw .invalidArgs("\(member) takes (\(method.inputSignature)), not (\(message.signature))")
        }
        return method
    }
}

extension Connection {
    /// Exports an object. Export objects before requesting a well-known name, or early callers
    /// get `UnknownObject`.
    public func export(_ interfaces: [DBusInterface], at path: ObjectPath) throws(DBusError) {
        try state.withLock { (state: inout State) throws(DBusError) in try state.objects.add(interfaces, at: path) }
    }

    /// Stops serving the object at `path`.
    public func unexport(_ path: ObjectPath) {
        _ = state.withLock { $0.objects.remove(path) }
    }

    /// Emits a signal declared by `interface`, checking its name and arguments against the
    /// declaration.
    public func emit(
        _ signal: String, of interface: DBusInterface, from path: ObjectPath,
        _ arguments: [DBusValue] = []
    ) throws(DBusError) {
        guard let declared = interface.signal(named: signal) else {
            throw .failed("\(interface.name) declares no signal \(signal)")
        }
        guard arguments.signature == declared.signature else {
            throw .invalidArgs("signal \(signal) takes (\(declared.signature)), not (\(arguments.signature))")
        }
        try emitSignal(path: path, interface: interface.name, member: signal, arguments)
    }

    /// Finds the method a call names and runs it, or answers with the standard error. The
    /// call's header is enough to find the method: `decoded` gives the whole call once found.
    func handleMethodCall(_ header: Message, decoded: (_ first: Int) -> Message) {
        let method: DBusInterface.Method
        do {
            method = try state.withLock { (state: inout State) throws(DBusError) in
                try state.objects.method(for: header)
            }
        } catch {
            reply(to: header, with: .failure(error))
            return
        }
        let message = decoded(method.decodedArguments)
        let call = DBusInterface.Call(message: message, connection: self)
        switch method.handler {
        case .sync(let handler):
            reply(to: message, with: Result { try checkedOutput(method, handler(call)) })
        case .async(let handler):
            // On a connection a caller's thread serves (an app's main thread), the handler runs
            // there too, so an app's process starts no worker threads (each costs a stack and
            // a malloc arena) to answer the runner. Elsewhere it runs on the global executor.
            Task(executorPreference: servedByCaller.load(ordering: .relaxed) ? self : nil) {
                let result: Result<[DBusValue], any Error>
                do { result = .success(try self.checkedOutput(method, await handler(call))) } catch {
                    result = .failure(error)
                }
                self.reply(to: message, with: result)
            }
        }
    }

    private func checkedOutput(_ method: DBusInterface.Method, _ values: [DBusValue]) throws -> [DBusValue] {
        guard values.signature == method.outputSignature else {
            throw DBusError.failed(
                "\(method.name) produced (\(values.signature)) instead of (\(method.outputSignature))")
        }
        return values
    }

    /// The interfaces exported at `path`, for the standard interfaces' handlers.
    func exportedInterfaces(at path: ObjectPath) -> [DBusInterface]? {
        state.withLock { $0.objects.interfacesByPath[path] }
    }

    func introspect(_ path: ObjectPath) -> String {
        let (interfaces, children) = state.withLock {
            ($0.objects.dispatchTable(for: path) ?? [], $0.objects.children(of: path))
        }
        var lines = [introspectionDoctype, "<node>"]
        lines += interfaces.map { $0.introspectionXML(indent: 2) }
        lines += children.map { "  <node name=\"\($0)\"/>" }
        lines.append("</node>")
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Introspectable, Properties and Peer, declared like any other interface so that the same
/// declarations drive their dispatch and their introspection.
enum StandardInterfaces {
    static let names: Set<String> = [introspectable.name, properties.name, peer.name]
    static let forObject = [introspectable, properties, peer]
    static let forIntermediateNode = [introspectable, peer]

    static let introspectable = DBusInterface(
        "org.freedesktop.DBus.Introspectable",
        methods: [
            .init("Introspect", out: [.init("xml_data", "s")]) { call in
                [.string(call.connection.introspect(call.message.path ?? .root))]
            }
        ])

    static let properties = DBusInterface(
        "org.freedesktop.DBus.Properties",
        methods: [
            .init("Get", in: [.init("interface_name", "s"), .init("property_name", "s")], out: [.init("value", "v")]) {
                call in
                let property = try find(call, interface: call.arguments[0].string!, property: call.arguments[1].string!)
                return [.variant(try read(property))]
            },
            .init("GetAll", in: [.init("interface_name", "s")], out: [.init("properties", "a{sv}")]) { call in
                let name = call.arguments[0].string!
                let interfaces = try exported(call).filter { name.isEmpty || $0.name == name }
                if interfaces.isEmpty { throw DBusError.unknownInterface("no interface \(name)") }
                var values: [String: DBusValue] = [:]
                for property in interfaces.flatMap(\.properties) { values[property.name] = try read(property) }
                return [.vardict(values)]
            },
            .init(
                "Set", in: [.init("interface_name", "s"), .init("property_name", "s"), .init("value", "v")],
                // Every property is read-only: the value (32 MiB, say) is never decoded.
                decodingFirst: 2
            ) { call in
                let property = try find(call, interface: call.arguments[0].string!, property: call.arguments[1].string!)
                throw DBusError.propertyReadOnly("\(property.name) is read-only")
            },
        ],
        signals: [
            .init(
                "PropertiesChanged",
                [
                    .init("interface_name", "s"), .init("changed_properties", "a{sv}"),
                    .init("invalidated_properties", "as"),
                ])
        ])

    static let peer = DBusInterface(
        "org.freedesktop.DBus.Peer",
        methods: [
            .init("Ping") { _ in [] },
            .init("GetMachineId", out: [.init("machine_uuid", "s")]) { _ in
                var error = CDBus.DBusError()
                dbus_error_init(&error)
                defer { dbus_error_free(&error) }
                guard let id = dbus_try_get_local_machine_id(&error) else {
                    throw DBusError(libdbus: error, fallback: "no machine id")
                }
                defer { dbus_free(id) }
                return [.string(String(cString: id))]
            },
        ])

    private static func exported(_ call: DBusInterface.Call) throws -> [DBusInterface] {
        guard let path = call.message.path, let interfaces = call.connection.exportedInterfaces(at: path) else {
            throw DBusError.unknownObject("no object at \(call.message.path?.rawValue ?? "/")")
        }
        return interfaces
    }

    private static func find(_ call: DBusInterface.Call, interface name: String, property: String) throws
        -> DBusInterface.Property
    {
        guard let interface = try exported(call).first(where: { $0.name == name }) else {
            throw DBusError.unknownInterface("no interface \(name)")
        }
        guard let found = interface.property(named: property) else {
            throw DBusError.unknownProperty("\(name) has no property \(property)")
        }
        return found
    }

    private static func read(_ property: DBusInterface.Property) throws -> DBusValue {
        let value = property.read()
        guard value.signature == property.type else {
            throw DBusError.failed("property \(property.name) gave \(value.signature) instead of \(property.type)")
        }
        return value
    }
}
