import DBusKit
import DeviceProcesses
import TestSupport
import Testing

/// Read-only properties through org.freedesktop.DBus.Properties.
@Suite(.tags(.device), .devicesWanted) struct PropertyTests {
    static let properties = "org.freedesktop.DBus.Properties"

    static let expected: [String: DBusValue] = [
        "Name": "phone",
        "Tags": .strings(["a", "b"]),
        "Info": .vardict(["model": "x1", "cores": .uint32(8)]),
        "Origin": .structure([.int32(-1), .int32(2)]),
    ]

    /// Every property of `expected`, plus `Reads`, which counts how often it was read.
    static func propertyInterface(reads: Locked<UInt32>) -> DBusInterface {
        DBusInterface(
            testInterface,
            properties: [
                .init("Name", "s") { expected["Name"]! },
                .init("Tags", "as") { expected["Tags"]! },
                .init("Info", "a{sv}") { expected["Info"]! },
                .init("Origin", "(ii)") { expected["Origin"]! },
                .init("Reads", "u") {
                    .uint32(
                        reads.update {
                            $0 += 1
                            return $0
                        })
                },
            ])
    }

    func withPropertyServer(_ body: (_ server: Connection, _ client: Connection) async throws -> Void) async throws {
        let reads = Locked<UInt32>(0)
        try await withConnections(2) { _, connections in
            try connections[0].export([Self.propertyInterface(reads: reads)], at: testPath)
            try await body(connections[0], connections[1])
        }
    }

    func properties(_ client: Connection, _ server: Connection, _ member: String, _ arguments: [DBusValue]) async throws
        -> [DBusValue]
    {
        try await client.call(
            destination: server.uniqueName, path: testPath, interface: Self.properties,
            member: member, arguments, timeout: .seconds(10))
    }

    func propertiesError(_ client: Connection, _ server: Connection, _ member: String, _ arguments: [DBusValue]) async
        -> String?
    {
        await #expect(throws: DBusError.self) { try await properties(client, server, member, arguments) }?.name
    }

    @Test(.timeLimit(.minutes(3)))
    func get() async throws {
        try await withPropertyServer { server, client in
            for (name, value) in Self.expected {
                let reply = try await properties(client, server, "Get", [.string(testInterface), .string(name)])
                #expect(reply == [.variant(value)], "\(name)")
            }
            // Read each time it is asked for.
            let first = try await properties(client, server, "Get", [.string(testInterface), "Reads"])
            let second = try await properties(client, server, "Get", [.string(testInterface), "Reads"])
            #expect(first == [.variant(.uint32(1))])
            #expect(second == [.variant(.uint32(2))])
        }
    }

    @Test(.timeLimit(.minutes(3)), arguments: [testInterface, ""])
    func getAll(interface: String) async throws {
        try await withPropertyServer { server, client in
            let reply = try await properties(client, server, "GetAll", [.string(interface)])
            #expect(reply.signature == "a{sv}")
            let all = try #require(reply.first?.stringKeyed)
            #expect(Set(all.keys) == Set(Self.expected.keys).union(["Reads"]))
            for (name, value) in Self.expected {
                #expect(all[name] == .variant(value), "\(name)")
            }
            // The variants carry the declared types.
            let declared = Self.propertyInterface(reads: Locked(0)).properties
            for property in declared {
                #expect(all[property.name]?.variant?.signature == property.type, "\(property.name)")
            }
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func setIsRefused() async throws {
        try await withPropertyServer { server, client in
            let error = await propertiesError(
                client, server, "Set", [.string(testInterface), "Name", .variant("tablet")])
            #expect(error == "org.freedesktop.DBus.Error.PropertyReadOnly")
            let after = try await properties(client, server, "Get", [.string(testInterface), "Name"])
            #expect(after == [.variant("phone")])
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func unknownPropertyOrInterface() async throws {
        try await withPropertyServer { server, client in
            let prefix = "org.freedesktop.DBus.Error."
            #expect(
                await propertiesError(client, server, "Get", [.string(testInterface), "Missing"]) == prefix
                    + "UnknownProperty")
            #expect(
                await propertiesError(client, server, "Set", [.string(testInterface), "Missing", .variant("x")])
                    == prefix + "UnknownProperty")
            #expect(
                await propertiesError(client, server, "Get", ["dev.test.Other", "Name"]) == prefix + "UnknownInterface")
            #expect(await propertiesError(client, server, "GetAll", ["dev.test.Other"]) == prefix + "UnknownInterface")
            #expect(
                await propertiesError(client, server, "Set", ["dev.test.Other", "Name", .variant("x")])
                    == prefix + "UnknownInterface")
            #expect(await propertiesError(client, server, "Get", ["only one argument"]) == prefix + "InvalidArgs")
        }
    }
}
