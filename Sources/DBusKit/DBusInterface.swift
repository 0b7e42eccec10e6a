/// One declaration of an interface: it drives dispatch (which members exist, which argument
/// signature each takes), property reads, signal emission checks and `Introspect` alike.
public struct DBusInterface: Sendable {
    public let name: String
    public let methods: [Method]
    public let properties: [Property]
    public let signals: [Signal]

    public init(_ name: String, methods: [Method] = [], properties: [Property] = [], signals: [Signal] = []) {
        precondition(DBusNames.isValidInterfaceName(name), "bad interface name \(name)")
        self.name = name
        self.methods = methods
        self.properties = properties
        self.signals = signals
    }

    /// A named argument of one complete type.
    public struct Argument: Sendable {
        public let name: String
        public let type: Signature
        public init(_ name: String, _ type: Signature) {
            precondition(type.completeTypes.count == 1, "argument \(name) must be one complete type")
            self.name = name
            self.type = type
        }
    }

    /// What a method handler gets: the call and the connection it came on.
    public struct Call: Sendable {
        public let message: Message
        public let connection: Connection
        public var arguments: [DBusValue] { message.body }
        public var sender: String { message.sender ?? "" }
    }

    /// The code that answers a method call with the reply's values, or throws a `DBusError`.
    public enum Handler: Sendable {
        /// Runs on the connection's owner thread: must not block.
        case sync(@Sendable (Call) throws -> [DBusValue])
        /// Runs in a task of its own.
        case async(@Sendable (Call) async throws -> [DBusValue])
    }

    /// A method: its arguments in and out, and its handler. A call whose arguments do not match
    /// the input signature is answered with `InvalidArgs` before the handler runs.
    public struct Method: Sendable {
        public let name: String
        public let inputs: [Argument]
        public let outputs: [Argument]
        public let handler: Handler
        /// How many leading arguments the handler reads: the rest of the body is not decoded.
        public let decodedArguments: Int

        public init(
            _ name: String, in inputs: [Argument] = [], out outputs: [Argument] = [], decodingFirst: Int = .max,
            _ handler: @escaping @Sendable (Call) throws -> [DBusValue]
        ) {
            self.init(name, inputs, outputs, .sync(handler), decodingFirst)
        }

        public init(
            _ name: String, in inputs: [Argument] = [], out outputs: [Argument] = [],
            async handler: @escaping @Sendable (Call) async throws -> [DBusValue]
        ) {
            self.init(name, inputs, outputs, .async(handler), .max)
        }

        private init(
            _ name: String, _ inputs: [Argument], _ outputs: [Argument], _ handler: Handler, _ decodedArguments: Int
        ) {
            precondition(DBusNames.isValidMemberName(name), "bad method name \(name)")
            self.name = name
            self.inputs = inputs
            self.outputs = outputs
            self.handler = handler
            self.decodedArguments = decodedArguments
        }

        public var inputSignature: Signature { inputs.reduce(.empty) { $0 + $1.type } }
        public var outputSignature: Signature { outputs.reduce(.empty) { $0 + $1.type } }
    }

    /// A read-only property, read each time it is asked for.
    public struct Property: Sendable {
        public let name: String
        public let type: Signature
        public let read: @Sendable () -> DBusValue

        public init(_ name: String, _ type: Signature, _ read: @escaping @Sendable () -> DBusValue) {
            precondition(DBusNames.isValidMemberName(name), "bad property name \(name)")
            precondition(type.completeTypes.count == 1, "property \(name) must be one complete type")
            self.name = name
            self.type = type
            self.read = read
        }
    }

    /// A signal this interface declares, for `emit` and introspection.
    public struct Signal: Sendable {
        public let name: String
        public let arguments: [Argument]

        public init(_ name: String, _ arguments: [Argument] = []) {
            precondition(DBusNames.isValidMemberName(name), "bad signal name \(name)")
            self.name = name
            self.arguments = arguments
        }

        public var signature: Signature { arguments.reduce(.empty) { $0 + $1.type } }
    }

    /// The method of this name, if declared.
    public func method(named name: String) -> Method? { methods.first { $0.name == name } }
    /// The property of this name, if declared.
    public func property(named name: String) -> Property? { properties.first { $0.name == name } }
    /// The signal of this name, if declared.
    public func signal(named name: String) -> Signal? { signals.first { $0.name == name } }
}

// MARK: - Introspection XML

extension DBusInterface {
    /// The `<interface>` element, indented by `indent` spaces.
    public func introspectionXML(indent: Int = 2) -> String {
        let pad = String(repeating: " ", count: indent)
        var lines = ["\(pad)<interface name=\"\(name)\">"]
        for method in methods {
            let args =
                method.inputs.map { argXML($0, direction: "in") } + method.outputs.map { argXML($0, direction: "out") }
            lines += element(pad, "method", method.name, args)
        }
        for signal in signals {
            lines += element(pad, "signal", signal.name, signal.arguments.map { argXML($0, direction: nil) })
        }
        for property in properties {
            lines.append(
                "\(pad)  <property name=\"\(property.name)\" type=\"\(xmlEscaped(property.type.rawValue))\" access=\"read\"/>"
            )
        }
        lines.append("\(pad)</interface>")
        return lines.joined(separator: "\n")
    }

    private func element(_ pad: String, _ tag: String, _ name: String, _ args: [String]) -> [String] {
        if args.isEmpty { return ["\(pad)  <\(tag) name=\"\(name)\"/>"] }
        return ["\(pad)  <\(tag) name=\"\(name)\">"] + args.map { "\(pad)    \($0)" } + ["\(pad)  </\(tag)>"]
    }

    private func argXML(_ arg: Argument, direction: String?) -> String {
        let dir = direction.map { " direction=\"\($0)\"" } ?? ""
        return "<arg name=\"\(arg.name)\" type=\"\(xmlEscaped(arg.type.rawValue))\"\(dir)/>"
    }
}

func xmlEscaped(_ text: String) -> String {
    var out = ""
    for ch in text {
        switch ch {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        default: out.append(ch)
        }
    }
    return out
}

/// The document header every `Introspect` reply starts with.
public let introspectionDoctype = """
    <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
     "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
    """
