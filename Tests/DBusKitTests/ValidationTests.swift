import DBusKit
import DeviceProcesses
import TestSupport
import Testing

/// Names and signatures are checked in Swift before anything reaches libdbus, which aborts on
/// invalid input. No bus is needed, except to show that a bad value is never sent.
@Suite struct ValidationTests {
    static let nested32 = String(repeating: "a", count: 32) + "i"
    static let nested33 = String(repeating: "a", count: 33) + "i"
    static let structs32 = String(repeating: "(", count: 32) + "i" + String(repeating: ")", count: 32)
    static let structs33 = String(repeating: "(", count: 33) + "i" + String(repeating: ")", count: 33)

    @Test(
        .timeLimit(.minutes(3)),
        arguments: [
            "", "y", "bnqiuxtdsogh", "v", "as", "a{sv}", "a{s(ii)}", "(s(ix)as)", "aay", "a{ya{sv}}", "a(ii)v",
            nested32, structs32, String(repeating: "i", count: 255),
        ])
    func validSignatures(_ text: String) throws {
        let signature = try Signature(text)
        #expect(signature.rawValue == text)
    }

    @Test(
        .timeLimit(.minutes(3)),
        arguments: [
            "a{vs}", "a{(i)s}", "{ss}", "a{s}", "a{sss}", "a{ss", "(", "()", "(i", "i)", "a", "aa", "z", "r", "e", "m",
            nested33, structs33, String(repeating: "i", count: 256),
        ])
    func invalidSignatures(_ text: String) {
        let error = #expect(throws: DBusError.self) { try Signature(text) }
        #expect(error?.name == "org.freedesktop.DBus.Error.InvalidArgs")
    }

    @Test(.timeLimit(.minutes(3)))
    func completeTypes() {
        let signature: Signature = "sa{sv}(i(ss))aayv"
        #expect(signature.completeTypes.map(\.rawValue) == ["s", "a{sv}", "(i(ss))", "aay", "v"])
        #expect(Signature.empty.completeTypes.isEmpty)
    }

    @Test(.timeLimit(.minutes(3)))
    func objectPaths() throws {
        for valid in ["/", "/a", "/a/b_c/D9", "/_"] {
            #expect(DBusNames.isValidObjectPath(valid), "\(valid)")
            #expect(try ObjectPath(valid).rawValue == valid)
        }
        for invalid in ["", "a", "a/b", "/a/", "//", "/a//b", "/a-b", "/a.b", "/a b", "/é"] {
            #expect(!DBusNames.isValidObjectPath(invalid), "\(invalid)")
            #expect(throws: DBusError.self) { try ObjectPath(invalid) }
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func interfaceNames() {
        for valid in ["a.b", "dev.test.Iface", "_a.b1", "A_.B_.c9", String(repeating: "a.", count: 127) + "b"] {
            #expect(DBusNames.isValidInterfaceName(valid), "\(valid)")
        }
        let tooLong = String(repeating: "a", count: 126) + "." + String(repeating: "b", count: 129)
        for invalid in ["", "a", ".a.b", "a..b", "a.b.", "1a.b", "a.1b", "a-b.c", "a.b/c", "a.b c", tooLong] {
            #expect(!DBusNames.isValidInterfaceName(invalid), "\(invalid)")
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func memberNames() {
        for valid in ["Echo", "_x", "a1", "A_B", String(repeating: "m", count: 255)] {
            #expect(DBusNames.isValidMemberName(valid), "\(valid)")
        }
        for invalid in ["", "1a", "a.b", "a-b", "a b", "é", String(repeating: "m", count: 256)] {
            #expect(!DBusNames.isValidMemberName(invalid), "\(invalid)")
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func busNames() {
        for valid in [":1.42", ":1.2-3", "dev.test.Name", "a-b.c", "org.freedesktop.DBus", "_x.y"] {
            #expect(DBusNames.isValidBusName(valid), "\(valid)")
        }
        let tooLong = "a." + String(repeating: "b", count: 254)
        for invalid in ["", ":", "a", "1a.b", "a.1b", ".a", "a..b", "a.b.", "a.b c", "a/b.c", tooLong] {
            #expect(!DBusNames.isValidBusName(invalid), "\(invalid)")
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func validValuesPass() throws {
        for sample in EchoCase.basics + EchoCase.containers {
            for value in sample.values { try value.validate() }
        }
    }

    @Test(
        .timeLimit(.minutes(3)),
        arguments: [
            DBusValue.string("a\0b"),
            .array(element: "s", [.string("ok"), .int32(1)]),
            .array(element: "s", [.string("nul\0")]),
            .array(element: "ay", [.array(element: "y", [.byte(1)]), .array(element: "i", [])]),
            .dictionary(key: "s", value: "v", [.init(.string("k"), .int32(1))]),
            .dictionary(key: "v", value: "s", []),
            .dictionary(key: "(i)", value: "s", []),
            .structure([]),
            .variant(.structure([])),
            .variant(.string("\0")),
            // Types libdbus cannot write or the daemon refuses (it would drop the connection):
            .array(element: "ii", []),
            .array(element: "", []),
            .dictionary(key: "s", value: "ss", []),
            .variant(.array(element: "ii", [])),
            nested(33) { .array(element: $0.signature, [$0]) },
            nested(33) { .structure([$0]) },
            nested(65) { .variant($0) },
        ])
    func invalidValues(_ value: DBusValue) {
        let error = #expect(throws: DBusError.self) { try value.validate() }
        #expect(error?.name == "org.freedesktop.DBus.Error.InvalidArgs")
    }

    /// The deepest values the daemon accepts: 32 nested arrays, or 64 containers through variants.
    @Test(.timeLimit(.minutes(3)))
    func deepestValidValues() throws {
        try nested(32) { .array(element: $0.signature, [$0]) }.validate()
        try nested(64) { .variant($0) }.validate()
        try nested(32) { .structure([.variant($0)]) }.validate()
    }

    /// An invalid value fails the call locally: the server's handler only ever sees the valid
    /// call made afterwards (the bus keeps one sender's messages in order).
    @Test(.tags(.device), .devicesWanted, .timeLimit(.minutes(3)))
    func invalidArgumentsAreNeverSent() async throws {
        let received = Locked<[[DBusValue]]>([])
        try await withConnections(2) { _, connections in
            let (server, client) = (connections[0], connections[1])
            try server.export(
                [
                    DBusInterface(
                        testInterface,
                        methods: [
                            .init("Take", in: [.init("text", "s"), .init("list", "as")]) { call in
                                received.update { $0.append(call.arguments) }
                                return []
                            }
                        ])
                ], at: testPath)
            let badBodies: [[DBusValue]] = [
                ["a\0b", .strings([])],
                ["ok", .array(element: "s", [.int32(1)])],
                ["ok", .array(element: "ss", [])],
                ["ok", nested(33) { .array(element: $0.signature, [$0]) }],
                Array(repeating: .int32(1), count: 256),  // a body signature of 256 bytes
            ]
            for bad in badBodies {
                let error = await #expect(throws: DBusError.self) {
                    try await client.call(
                        destination: server.uniqueName, path: testPath, interface: testInterface,
                        member: "Take", bad, timeout: .seconds(10))
                }
                #expect(error?.name == "org.freedesktop.DBus.Error.InvalidArgs")
            }
            let good: [DBusValue] = ["fine", .strings(["x"])]
            _ = try await client.call(
                destination: server.uniqueName, path: testPath, interface: testInterface,
                member: "Take", good, timeout: .seconds(10))
            #expect(received.value == [good])
            #expect(client.isConnected, "the bus never saw a malformed message")
        }
    }

    /// Bad names are refused before libdbus sees them (it would abort the process).
    @Test(.tags(.device), .devicesWanted, .timeLimit(.minutes(3)))
    func invalidNamesInCalls() async throws {
        try await withConnections(1) { _, connections in
            let connection = connections[0]
            for (destination, interface, member) in [("no", "a.b", "M"), ("a.b", "nodots", "M"), ("a.b", "a.b", "1M")] {
                let error = await #expect(throws: DBusError.self) {
                    try await connection.call(destination: destination, path: "/", interface: interface, member: member)
                }
                #expect(error?.name == "org.freedesktop.DBus.Error.InvalidArgs")
            }
            #expect(throws: DBusError.self) { try connection.emitSignal(path: "/", interface: "bad", member: "S") }
            await #expect(throws: DBusError.self) { _ = try await connection.requestName("bad") }
            await #expect(throws: DBusError.self) { _ = try await connection.requestName(":1.99") }
            #expect(connection.isConnected, "the connection survives")
        }
    }
}

/// `levels` containers around an int32, each made by `wrap`.
func nested(_ levels: Int, _ wrap: (DBusValue) -> DBusValue) -> DBusValue {
    (0..<levels).reduce(DBusValue.int32(7)) { inner, _ in wrap(inner) }
}
