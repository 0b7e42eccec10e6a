import DBusKit
import DeviceProcesses
import TestSupport
import Testing

/// Opening and closing connections.
@Suite(.tags(.device), .devicesWanted) struct ConnectionTests {
    @Test(.timeLimit(.minutes(3)))
    func connectTalkAndClose() async throws {
        try await withConnections(2) { _, connections in
            let (connection, other) = (connections[0], connections[1])
            #expect(connection.uniqueName.hasPrefix(":"))
            #expect(connection.uniqueName != other.uniqueName)
            #expect(connection.isConnected)
            let id = try await connection.call(
                destination: Connection.busName, path: Connection.busPath,
                interface: Connection.busName, member: "GetId", timeout: .seconds(10))
            #expect(id.first?.string?.count == 32)

            let departures = try await ownerChanges(of: connection.uniqueName, on: other)
            await connection.close()
            #expect(!connection.isConnected)
            let error = await #expect(throws: DBusError.self) {
                try await connection.call(
                    destination: Connection.busName, path: Connection.busPath,
                    interface: Connection.busName, member: "GetId", timeout: .seconds(10))
            }
            #expect(error?.name == "org.freedesktop.DBus.Error.Disconnected")
            #expect(throws: DBusError.self) {
                try connection.emitSignal(path: testPath, interface: testInterface, member: "Posted")
            }
            await connection.close()  // a second close returns at once
            // The bus saw it go.
            let departure = try await next(departures)
            #expect(
                [departure.name, departure.oldOwner, departure.newOwner] == [
                    connection.uniqueName, connection.uniqueName, "",
                ])
        }
    }

    /// Calls waiting for a reply fail with Disconnected when their connection closes.
    @Test(.timeLimit(.minutes(3)))
    func closeEndsPendingCalls() async throws {
        let (entered, enteredContinuation) = AsyncStream<Void>.makeStream()
        let (never, release) = AsyncStream<Void>.makeStream()
        defer { release.finish() }
        try await withConnections(2) { _, connections in
            let (server, client) = (connections[0], connections[1])
            try server.export(
                [
                    DBusInterface(
                        testInterface,
                        methods: [
                            .init(
                                "Hang",
                                async: { _ in
                                    enteredContinuation.yield()
                                    for await _ in never {}
                                    return []
                                })
                        ])
                ], at: testPath)
            let destination = server.uniqueName
            let pending = Task {
                try await client.call(
                    destination: destination, path: testPath, interface: testInterface,
                    member: "Hang", timeout: .seconds(50))
            }
            try await next(entered)
            await client.close()
            let outcome = try await withTimeout(.seconds(10), "the pending call to end") { await pending.result }
            let error = #expect(throws: DBusError.self) { try outcome.get() }
            #expect(error?.name == "org.freedesktop.DBus.Error.Disconnected")
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func waitingForTheCloseEndsWhenTheWaiterIsCancelledOrTheConnectionCloses() async throws {
        try await withConnections(1) { _, connections in
            let connection = connections[0]
            let waiter = Task { await connection.closed() }
            waiter.cancel()
            await waiter.value  // returns although the connection is still open
            #expect(connection.isConnected)
            let second = Task { await connection.closed() }
            await connection.close()
            await second.value
            #expect(!connection.isConnected)
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func peerInterfaceOfOurConnection() async throws {
        try await withConnections(2) { _, connections in
            let (server, client) = (connections[0], connections[1])
            // Peer answers on any path, exported or not.
            let ping = try await client.call(
                destination: server.uniqueName, path: "/anywhere",
                interface: "org.freedesktop.DBus.Peer", member: "Ping", timeout: .seconds(10))
            #expect(ping.isEmpty)
            let id = try await client.call(
                destination: server.uniqueName, path: "/", interface: "org.freedesktop.DBus.Peer",
                member: "GetMachineId", timeout: .seconds(10))
            #expect(id.first?.string?.count == 32)
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func connectingToNothingFails() async throws {
        try await BusDaemon.withTemporary { _, directory in
            _ = await #expect(throws: DBusError.self) {
                let connection = try await Connection.connect(to: "unix:path=\(directory)/no-such-socket")
                await connection.close()
            }
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func exportRules() async throws {
        try await withConnections(1) { _, connections in
            let connection = connections[0]
            try connection.export([DBusInterface(testInterface)], at: testPath)
            #expect(throws: DBusError.self) { try connection.export([DBusInterface("dev.test.Other")], at: testPath) }
            #expect(throws: DBusError.self) {
                try connection.export([DBusInterface("dev.test.A"), DBusInterface("dev.test.A")], at: "/twice")
            }
            #expect(throws: DBusError.self) {
                try connection.export([DBusInterface("org.freedesktop.DBus.Properties")], at: "/standard")
            }
            connection.unexport(testPath)
            try connection.export([DBusInterface("dev.test.Other")], at: testPath)
        }
    }
}
