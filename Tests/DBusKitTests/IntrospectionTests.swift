import DBusKit
import DeviceProcesses
import Foundation
import FoundationXML
import TestSupport
import Testing

/// `Introspect` describes exactly what was declared: the same `DBusInterface` values drive
/// dispatch and introspection.
@Suite(.tags(.device), .devicesWanted) struct IntrospectionTests {
    static let objectPath: ObjectPath = "/a/b"

    static let declared = [
        DBusInterface(
            testInterface,
            methods: [
                .init("Echo", in: [.init("text", "s")], out: [.init("text", "s")]) { call in call.arguments },
                .init(
                    "Configure", in: [.init("options", "a{sv}"), .init("record", "(s(ix)as)")],
                    out: [.init("ok", "b"), .init("warnings", "as")]
                ) { _ in [true, .strings([])] },
                .init("Reset") { _ in [] },
                .init("Fetch", out: [.init("blob", "ay")], async: { _ in [.array(element: "y", [])] }),
            ],
            properties: [
                .init("Name", "s") { "phone" },
                .init("Sizes", "a{s(ii)}") { .dictionary(key: "s", value: "(ii)", []) },
            ],
            signals: [
                .init("Posted", [.init("what", "s")]),
                .init("Cleared"),
                .init("Moved", [.init("from", "o"), .init("to", "o"), .init("extra", "v")]),
            ]),
        DBusInterface(
            "dev.test.Second",
            methods: [
                .init("Ping", in: [.init("fd", "h")]) { _ in [] }
            ]),
    ]

    /// The standard interfaces as the D-Bus specification declares them.
    static let introspectable = DBusInterface(
        "org.freedesktop.DBus.Introspectable",
        methods: [
            .init("Introspect", out: [.init("xml_data", "s")]) { _ in [] }
        ])
    static let properties = DBusInterface(
        "org.freedesktop.DBus.Properties",
        methods: [
            .init("Get", in: [.init("interface_name", "s"), .init("property_name", "s")], out: [.init("value", "v")]) {
                _ in []
            },
            .init("GetAll", in: [.init("interface_name", "s")], out: [.init("properties", "a{sv}")]) { _ in [] },
            .init("Set", in: [.init("interface_name", "s"), .init("property_name", "s"), .init("value", "v")]) { _ in []
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
            .init("GetMachineId", out: [.init("machine_uuid", "s")]) { _ in [] },
        ])

    func introspect(_ client: Connection, _ server: Connection, _ path: ObjectPath) async throws -> IntrospectedNode {
        let reply = try await client.call(
            destination: server.uniqueName, path: path,
            interface: "org.freedesktop.DBus.Introspectable", member: "Introspect",
            timeout: .seconds(10))
        let xml = try #require(reply.first?.string)
        #expect(xml.hasPrefix("<!DOCTYPE node PUBLIC"))
        return try IntrospectedNode(xml: xml)
    }

    @Test(.timeLimit(.minutes(3)))
    func objectMatchesItsDeclaration() async throws {
        try await withConnections(2) { _, connections in
            let (server, client) = (connections[0], connections[1])
            try server.export(Self.declared, at: Self.objectPath)
            let node = try await introspect(client, server, Self.objectPath)
            let expected = [Self.introspectable, Self.properties, Self.peer] + Self.declared
            #expect(node.interfaces == Set(expected.map(\.name)))
            #expect(node.members == IntrospectedMember.members(of: expected))
            #expect(node.children.isEmpty)
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func intermediateNodesListTheirChildren() async throws {
        try await withConnections(2) { _, connections in
            let (server, client) = (connections[0], connections[1])
            try server.export(Self.declared, at: Self.objectPath)
            let standard = [Self.introspectable, Self.peer]
            for (path, child) in [(ObjectPath.root, "a"), ("/a", "b")] {
                let node = try await introspect(client, server, path)
                #expect(node.children == [child], "\(path)")
                #expect(node.interfaces == Set(standard.map(\.name)), "\(path)")
                #expect(node.members == IntrospectedMember.members(of: standard), "\(path)")
            }
            let error = await #expect(throws: DBusError.self) { try await introspect(client, server, "/a/b/c") }
            #expect(error?.name == "org.freedesktop.DBus.Error.UnknownObject")
        }
    }

    /// gdbus reads our XML: the object's members and, recursing from `/`, the node tree.
    @Test(.timeLimit(.minutes(3)))
    func gdbusIntrospect() async throws {
        try await withConnections(1) { daemon, connections in
            let server = connections[0]
            try server.export(Self.declared, at: Self.objectPath)
            #expect(try await server.requestName(testName) == .primaryOwner)
            let object = try await run(
                "gdbus",
                [
                    "introspect", "--address", daemon.address, "--dest", testName,
                    "--object-path", Self.objectPath.rawValue,
                ])
            #expect(object.status == 0, "\(object.stderr)")
            for interface in Self.declared {
                #expect(object.stdout.contains("interface \(interface.name) {"))
                for method in interface.methods {
                    #expect(object.stdout.contains(" \(method.name)("), "\(method.name)")
                }
            }
            #expect(object.stdout.contains("Configure(in  a{sv} options,"))
            #expect(object.stdout.contains("Posted(s what);"))
            #expect(object.stdout.contains("readonly s Name"))

            let tree = try await run(
                "gdbus",
                [
                    "introspect", "--address", daemon.address, "--dest", testName,
                    "--object-path", "/", "--recurse",
                ])
            #expect(tree.status == 0, "\(tree.stderr)")
            #expect(tree.stdout.contains("node /a/b {"), "\(tree.stdout)")
        }
    }
}

/// One member of an interface as introspection shows it: arguments as "direction name type"
/// (methods), "name type" (signals) or "type access" (properties).
struct IntrospectedMember: Hashable, CustomStringConvertible {
    let interface: String
    let kind: String
    let name: String
    let arguments: [String]

    var description: String { "\(interface) \(kind) \(name)(\(arguments.joined(separator: ", ")))" }

    static func members(of interfaces: [DBusInterface]) -> Set<IntrospectedMember> {
        var members = Set<IntrospectedMember>()
        for interface in interfaces {
            for method in interface.methods {
                let arguments =
                    method.inputs.map { "in \($0.name) \($0.type)" }
                    + method.outputs.map { "out \($0.name) \($0.type)" }
                members.insert(
                    .init(interface: interface.name, kind: "method", name: method.name, arguments: arguments))
            }
            for signal in interface.signals {
                members.insert(
                    .init(
                        interface: interface.name, kind: "signal", name: signal.name,
                        arguments: signal.arguments.map { "\($0.name) \($0.type)" }))
            }
            for property in interface.properties {
                members.insert(
                    .init(
                        interface: interface.name, kind: "property", name: property.name,
                        arguments: ["\(property.type) read"]))
            }
        }
        return members
    }
}

/// What an `Introspect` reply says about one node.
struct IntrospectedNode {
    var interfaces = Set<String>()
    var members = Set<IntrospectedMember>()
    var children: [String] = []

    init(xml: String) throws {
        let document = try XMLDocument(xmlString: xml, options: [])
        let root = try #require(document.rootElement())
        #expect(root.name == "node")
        for interface in root.elements(forName: "interface") {
            let interfaceName = try #require(interface.attribute(forName: "name")?.stringValue)
            interfaces.insert(interfaceName)
            for member in interface.children?.compactMap({ $0 as? XMLElement }) ?? [] {
                let kind = try #require(member.name)
                let name = try #require(member.attribute(forName: "name")?.stringValue)
                let arguments: [String]
                switch kind {
                case "method":
                    arguments = member.elements(forName: "arg").map { arg in
                        let direction = arg.attribute(forName: "direction")?.stringValue ?? "in"
                        return
                            "\(direction) \(arg.attribute(forName: "name")?.stringValue ?? "") \(arg.attribute(forName: "type")?.stringValue ?? "")"
                    }
                case "signal":
                    arguments = member.elements(forName: "arg").map { arg in
                        #expect(arg.attribute(forName: "direction")?.stringValue ?? "out" == "out")
                        return
                            "\(arg.attribute(forName: "name")?.stringValue ?? "") \(arg.attribute(forName: "type")?.stringValue ?? "")"
                    }
                case "property":
                    arguments = [
                        "\(member.attribute(forName: "type")?.stringValue ?? "") \(member.attribute(forName: "access")?.stringValue ?? "")"
                    ]
                default:
                    Issue.record("unexpected element <\(kind)> in \(interfaceName)")
                    continue
                }
                let (inserted, _) = members.insert(
                    IntrospectedMember(interface: interfaceName, kind: kind, name: name, arguments: arguments))
                #expect(inserted, "\(interfaceName).\(name) is listed once")
            }
        }
        children = root.elements(forName: "node").compactMap { $0.attribute(forName: "name")?.stringValue }
    }
}
