import DBusKit
import DeviceProcesses
import TestSupport
import Testing

/// Error replies, timeouts and cancellation as the caller sees them.
@Suite(.tags(.device), .devicesWanted) struct ErrorTests {
    struct Oops: Error {}

    /// What the test learns from the server's handlers.
    struct Server {
        let connection: Connection
        /// One element each time `Hang` is entered.
        let entered: AsyncStream<Void>
        /// How many times `Record` ran.
        let recorded: Locked<Int>
    }

    /// Methods that fail in every way a handler can, one that never answers (`Hang`) and one
    /// that counts its calls (`Record`).
    static func failingInterface(
        entered: AsyncStream<Void>.Continuation, never: AsyncStream<Void>,
        recorded: Locked<Int>
    ) -> DBusInterface {
        DBusInterface(
            testInterface,
            methods: [
                .init("Boom") { _ in throw DBusError(name: "dev.test.Error.Boom", message: "bang") },
                .init(
                    "AsyncBoom",
                    async: { _ in
                        await Task.yield()
                        throw DBusError(name: "dev.test.Error.Boom", message: "async bang")
                    }),
                .init("Oops") { _ in throw Oops() },
                .init("WrongOutput", out: [.init("text", "s")]) { _ in [.int32(1)] },
                .init("Echo", in: [.init("text", "s")], out: [.init("text", "s")]) { call in call.arguments },
                .init("TooLarge", out: [.init("text", "s")]) { _ in [.string(String(repeating: "x", count: 33 << 20))]
                },
                .init("Record") { _ in
                    recorded.update { $0 += 1 }
                    return []
                },
                .init(
                    "Hang",
                    async: { _ in
                        entered.yield()
                        for await _ in never {}
                        return []
                    }),
            ])
    }

    /// Runs `body` with a server exporting `failingInterface` and a client. Hanging handlers
    /// are released at the end.
    func withFailingServer(_ body: (_ server: Server, _ client: Connection) async throws -> Void) async throws {
        let (entered, enteredContinuation) = AsyncStream<Void>.makeStream()
        let (never, release) = AsyncStream<Void>.makeStream()
        defer { release.finish() }
        let recorded = Locked(0)
        try await withConnections(2) { _, connections in
            try connections[0].export(
                [Self.failingInterface(entered: enteredContinuation, never: never, recorded: recorded)],
                at: testPath)
            try await body(Server(connection: connections[0], entered: entered, recorded: recorded), connections[1])
        }
    }

    func callError(
        _ client: Connection, _ server: Server, path: ObjectPath = testPath,
        interface: String? = testInterface, _ member: String, _ arguments: [DBusValue] = []
    ) async -> DBusError? {
        await #expect(throws: DBusError.self) {
            try await client.call(
                destination: server.connection.uniqueName, path: path, interface: interface, member: member,
                arguments, timeout: .seconds(10))
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func thrownDBusErrorArrivesWithNameAndMessage() async throws {
        try await withFailingServer { server, client in
            let error = await callError(client, server, "Boom")
            #expect(error == DBusError(name: "dev.test.Error.Boom", message: "bang"))
            let asyncError = await callError(client, server, "AsyncBoom")
            #expect(asyncError == DBusError(name: "dev.test.Error.Boom", message: "async bang"))
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func plainSwiftErrorBecomesFailed() async throws {
        try await withFailingServer { server, client in
            let error = await callError(client, server, "Oops")
            #expect(error?.name == "org.freedesktop.DBus.Error.Failed")
            #expect(error?.message.contains("Oops") == true)
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func replyOfTheWrongTypeBecomesFailed() async throws {
        try await withFailingServer { server, client in
            let error = await callError(client, server, "WrongOutput")
            #expect(error?.name == "org.freedesktop.DBus.Error.Failed")
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func unknownTargetsAndWrongArguments() async throws {
        try await withFailingServer { server, client in
            let prefix = "org.freedesktop.DBus.Error."
            #expect(await callError(client, server, path: "/nowhere", "Echo", ["x"])?.name == prefix + "UnknownObject")
            #expect(
                await callError(client, server, interface: "dev.test.Other", "Echo", ["x"])?.name == prefix
                    + "UnknownInterface")
            #expect(await callError(client, server, "Missing")?.name == prefix + "UnknownMethod")
            #expect(await callError(client, server, interface: nil, "Missing")?.name == prefix + "UnknownMethod")
            #expect(await callError(client, server, "Echo", [.int32(1)])?.name == prefix + "InvalidArgs")
            #expect(await callError(client, server, "Echo", ["a", "b"])?.name == prefix + "InvalidArgs")
            #expect(await callError(client, server, "Echo")?.name == prefix + "InvalidArgs")
            // Without an interface the member is looked up in every interface of the object.
            let reply = try await client.call(
                destination: server.connection.uniqueName, path: testPath, interface: nil,
                member: "Echo", ["found"], timeout: .seconds(10))
            #expect(reply == ["found"])
        }
    }

    /// A bus disconnects whoever sends a message larger than its max_message_size (32 MiB by
    /// default, and in Bus/device.conf): such a reply becomes an error reply instead, such a
    /// call fails before it is sent, and both connections keep serving.
    /// Bounds, not timings: alone it takes seconds, beside the whole suite on two cores minutes.
    @Test(.timeLimit(.minutes(4)))
    func messagesLargerThanABusCarriesFailWithoutADisconnect() async throws {
        try await withFailingServer { server, client in
            func call(_ member: String, _ arguments: [DBusValue] = []) async -> DBusError? {
                await #expect(throws: DBusError.self) {
                    try await client.call(
                        destination: server.connection.uniqueName, path: testPath, interface: testInterface,
                        member: member, arguments, timeout: .seconds(50))  // building 32 MiB under load takes long
                }
            }
            let reply = await call("TooLarge")
            #expect(reply?.name == "org.freedesktop.DBus.Error.Failed")
            #expect(reply?.message.contains("more than the 33554432 a bus carries") == true, "\(reply?.message ?? "")")
            let tooLarge = await call("Record", [.string(String(repeating: "x", count: 33 << 20))])
            #expect(tooLarge?.name == "org.freedesktop.DBus.Error.LimitsExceeded")
            // Just under the limit goes out (and is refused by its signature at the other end).
            let nearlyAsLarge = await call("Record", [.string(String(repeating: "y", count: (32 << 20) - 8192))])
            #expect(nearlyAsLarge?.name == "org.freedesktop.DBus.Error.InvalidArgs")
            #expect(server.recorded.value == 0)
            #expect(server.connection.isConnected && client.isConnected)
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func nobodyOwnsTheDestination() async throws {
        try await withConnections(1) { _, connections in
            let error = await #expect(throws: DBusError.self) {
                try await connections[0].call(
                    destination: "dev.test.Nobody", path: "/", interface: testInterface,
                    member: "Echo", timeout: .seconds(10))
            }
            #expect(error?.name == "org.freedesktop.DBus.Error.ServiceUnknown")
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func timeoutGivesNoReply() async throws {
        try await withFailingServer { server, client in
            let start = ContinuousClock.now
            let error = await #expect(throws: DBusError.self) {
                try await client.call(
                    destination: server.connection.uniqueName, path: testPath, interface: testInterface,
                    member: "Hang", timeout: .milliseconds(300))
            }
            let elapsed = ContinuousClock.now - start
            #expect(error?.name == "org.freedesktop.DBus.Error.NoReply")
            #expect(elapsed >= .milliseconds(300))
            // The call's own timeout, not libdbus's default 25 s; with room for a machine the
            // whole suite loads (300 ms took 5 s there once).
            #expect(elapsed < .seconds(15))
            // The connection still works after the timeout.
            let reply = try await client.call(
                destination: server.connection.uniqueName, path: testPath, interface: testInterface,
                member: "Echo", ["after"], timeout: .seconds(10))
            #expect(reply == ["after"])
        }
    }

    /// A timeout too long to ever expire (here Duration's maximum) means "no timeout".
    @Test(.timeLimit(.minutes(3)))
    func enormousTimeout() async throws {
        try await withFailingServer { server, client in
            let reply = try await client.call(
                destination: server.connection.uniqueName, path: testPath,
                interface: testInterface, member: "Echo", ["patient"],
                timeout: .seconds(Int64.max))
            #expect(reply == ["patient"])
        }
    }

    /// Cancelling the task that waits for a reply ends the call at once with CancellationError.
    @Test(.timeLimit(.minutes(3)))
    func cancellingTheCallerEndsTheCall() async throws {
        try await withFailingServer { server, client in
            let destination = server.connection.uniqueName
            let caller = Task {
                try await client.call(
                    destination: destination, path: testPath, interface: testInterface,
                    member: "Hang", timeout: .seconds(50))
            }
            try await next(server.entered)  // the call reached the handler: it is pending now
            caller.cancel()
            let outcome = try await withTimeout(.seconds(10), "the cancelled call to end") { await caller.result }
            #expect(throws: CancellationError.self) { try outcome.get() }
        }
    }

    /// A task cancelled before it calls gets CancellationError too, and nothing is sent.
    @Test(.timeLimit(.minutes(3)))
    func callFromACancelledTask() async throws {
        try await withFailingServer { server, client in
            let destination = server.connection.uniqueName
            let caller = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await client.call(
                    destination: destination, path: testPath, interface: testInterface,
                    member: "Record", timeout: .seconds(10))
            }
            let outcome = try await withTimeout(.seconds(10), "the cancelled call to end") { await caller.result }
            #expect(throws: CancellationError.self) { try outcome.get() }
            // Record would have run before this Echo: the server handles a sender's calls in order.
            _ = try await client.call(
                destination: destination, path: testPath, interface: testInterface,
                member: "Echo", ["after"], timeout: .seconds(10))
            #expect(server.recorded.value == 0)
        }
    }
}
