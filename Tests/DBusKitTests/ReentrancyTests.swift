import DBusKit
import DeviceProcesses
import TestSupport
import Testing

/// The connection lock is not recursive: what the connection runs (handlers, tasks that prefer
/// it) and what it lets go of (a handler's captures) may use the connection again.
@Suite(.tags(.device), .devicesWanted) struct ReentrancyTests {
    /// Uses its connection when it goes, as a handler's captures may.
    final class Canary: Sendable {
        let connection: Connection
        let gone: AsyncStream<Bool>.Continuation

        init(_ connection: Connection, _ gone: AsyncStream<Bool>.Continuation) {
            self.connection = connection
            self.gone = gone
        }

        deinit { gone.yield(connection.isConnected) }
    }

    @Test(.timeLimit(.minutes(3)))
    func handlersUseTheirOwnConnection() async throws {
        try await withConnections(2) { _, connections in
            let (server, client) = (connections[0], connections[1])
            try server.export(
                [
                    DBusInterface(
                        testInterface,
                        methods: [
                            .init("Reenter") { call in
                                let other: ObjectPath = "/dev/test/Other"
                                try call.connection.export([echoInterface("s")], at: other)
                                try call.connection.emitSignal(
                                    path: other, interface: testInterface, member: "Posted", ["in"])
                                call.connection.unexport(other)
                                return []
                            }
                        ])
                ], at: testPath)
            // A signal handler that ends its own subscription.
            let subscription = Locked<SignalSubscription?>(nil)
            let seen = Locked(0)
            let rule = MatchRule(interface: testInterface, member: "Posted")
            let handler = try await client.onSignal(matching: rule) { _ in
                seen.update { $0 += 1 }
                subscription.value?.cancel()
            }
            subscription.update { $0 = handler }
            // The bus delivers the handler's signal ahead of its reply.
            _ = try await client.call(
                destination: server.uniqueName, path: testPath, interface: testInterface,
                member: "Reenter")
            #expect(seen.value == 1)
            try server.emitSignal(path: testPath, interface: testInterface, member: "Posted", ["after"])
            await server.flush()
            await client.flush()
            #expect(seen.value == 1)

            // On the connection's own thread: subscribing starts the AddMatch call there.
            let posted = try await withTaskExecutorPreference(client) {
                try await client.signals(matching: rule)
            }
            try server.emitSignal(path: testPath, interface: testInterface, member: "Posted", ["again"])
            #expect(try await next(posted).body == ["again"])
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func capturesAreReleasedAfterTheLock() async throws {
        try await withConnections(1) { daemon, connections in
            let connection = connections[0]
            let (gone, goneContinuation) = AsyncStream<Bool>.makeStream()
            func canary(_ connection: Connection) -> Canary { Canary(connection, goneContinuation) }

            // An unexported object's handlers.
            try connection.export(
                [
                    DBusInterface(
                        testInterface,
                        methods: [
                            .init("Ping") { [canary = canary(connection)] _ in
                                _ = canary
                                return []
                            }
                        ])
                ], at: testPath)
            connection.unexport(testPath)
            #expect(try await next(gone) == true)

            // A cancelled subscription's handler.
            let rule = MatchRule(interface: testInterface, member: "Posted")
            let subscription = try await connection.onSignal(matching: rule) { [canary = canary(connection)] _ in
                _ = canary
            }
            subscription.cancel()
            #expect(try await next(gone) == true)

            // A closed connection's subscriptions' handlers.
            let other = try await Connection.connect(to: daemon.address)
            let kept = try await other.onSignal(matching: rule) { [canary = canary(other)] _ in _ = canary }
            await other.close()
            #expect(try await next(gone) == false)
            _ = kept
        }
    }
}
