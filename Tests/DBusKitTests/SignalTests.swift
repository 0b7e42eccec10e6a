import DBusKit
import DeviceProcesses
import Synchronization
import TestSupport
import Testing

/// Subscriptions: what they receive, and that the bus forgets their match rules when they end.
@Suite(.tags(.device), .devicesWanted) struct SignalTests {
    static let interface = DBusInterface(
        testInterface,
        signals: [
            .init("Posted", [.init("what", "s")]),
            .init("Counted", [.init("what", "s"), .init("count", "u")]),
        ])

    static func postedRule(_ what: String) -> MatchRule {
        MatchRule(interface: testInterface, member: "Posted", arguments: [0: what])
    }

    @Test(.timeLimit(.minutes(3)))
    func argumentFilter() async throws {
        try await withConnections(2) { _, connections in
            let (listener, emitter) = (connections[0], connections[1])
            let posted = try await listener.signals(matching: Self.postedRule("X"))
            // Y goes first: had it got through, it would be received first.
            try emitter.emit("Posted", of: Self.interface, from: testPath, ["Y"])
            try emitter.emit("Posted", of: Self.interface, from: testPath, ["X"])
            let first = try await next(posted)
            #expect(first.body == ["X"])
            #expect(first.member == "Posted")
            #expect(first.interface == testInterface)
            #expect(first.path == testPath)
            #expect(first.sender == emitter.uniqueName)
        }
    }

    /// A `'` in a match value must be escaped in the rule text, or AddMatch fails.
    @Test(.timeLimit(.minutes(3)), arguments: ["it's", "'", "a'b'c", "back\\slash, comma='x'"])
    func matchValueWithQuotes(_ value: String) async throws {
        try await withConnections(2) { _, connections in
            let (listener, emitter) = (connections[0], connections[1])
            let posted = try await listener.signals(matching: Self.postedRule(value))
            try emitter.emit("Posted", of: Self.interface, from: testPath, [.string(value + " not")])
            try emitter.emit("Posted", of: Self.interface, from: testPath, [.string(value)])
            #expect(try await next(posted).body == [.string(value)])
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func emitChecksTheDeclaration() async throws {
        try await withConnections(2) { _, connections in
            let (listener, emitter) = (connections[0], connections[1])
            let all = try await listener.signals(matching: MatchRule(interface: testInterface))
            let undeclared = #expect(throws: DBusError.self) {
                try emitter.emit("Unknown", of: Self.interface, from: testPath, ["X"])
            }
            #expect(undeclared?.name == "org.freedesktop.DBus.Error.Failed")
            for wrong: [DBusValue] in [[], [.int32(1)], ["X", .int32(1)], ["X"]] {
                let error = #expect(throws: DBusError.self) {
                    try emitter.emit("Counted", of: Self.interface, from: testPath, wrong)
                }
                #expect(error?.name == "org.freedesktop.DBus.Error.InvalidArgs")
            }
            // None of the refused signals was sent: the valid one is the first to arrive.
            try emitter.emit("Counted", of: Self.interface, from: testPath, ["ok", .uint32(3)])
            let first = try await next(all)
            #expect(first.member == "Counted")
            #expect(first.body == ["ok", .uint32(3)])
        }
    }

    /// One connection's subscriptions each get a copy of what matches them.
    @Test(.timeLimit(.minutes(3)))
    func subscriptionsSeeOnlyTheirSignals() async throws {
        try await withConnections(2) { _, connections in
            let (listener, emitter) = (connections[0], connections[1])
            let x = try await listener.signals(matching: Self.postedRule("X"))
            let y = try await listener.signals(matching: Self.postedRule("Y"))
            let any = try await listener.signals(
                matching: MatchRule(sender: emitter.uniqueName, interface: testInterface))
            try emitter.emit("Posted", of: Self.interface, from: testPath, ["Y"])
            try emitter.emit("Posted", of: Self.interface, from: testPath, ["X"])
            #expect(try await next(x).body == ["X"])
            #expect(try await next(y).body == ["Y"])
            #expect(try await next(any).body == ["Y"])
            #expect(try await next(any).body == ["X"])
        }
    }

    /// The rule is installed once per connection, shared by its subscribers, and removed
    /// from the daemon when the last one ends: by cancelling its task or by dropping its stream.
    @Test(.timeLimit(.minutes(3)))
    func endingSubscriptionsRemovesTheRule() async throws {
        try await withConnections(2) { _, connections in
            let (listener, observer) = (connections[0], connections[1])
            let marker = "arg0='Shared'"
            func rulesOfListener() async throws -> [String] {
                try await matchRules(of: listener.uniqueName, askingWith: observer).filter { $0.contains(marker) }
            }
            #expect(try await rulesOfListener().isEmpty)

            // Subscriber 1 iterates in a task of its own.
            let first = try await listener.signals(matching: Self.postedRule("Shared"))
            let (received, receivedContinuation) = AsyncStream<Message>.makeStream()
            let consumer = Task {
                for await message in first { receivedContinuation.yield(message) }
            }
            let rules = try await rulesOfListener()
            #expect(rules.count == 1)
            #expect(rules.first?.contains("interface='\(testInterface)'") == true)
            #expect(rules.first?.contains("member='Posted'") == true)

            do {
                // Subscriber 2 shares the rule.
                let second = try await listener.signals(matching: Self.postedRule("Shared"))
                #expect(try await rulesOfListener().count == 1)

                // Both receive; subscriber 1 then ends by cancellation, the rule stays for 2.
                try observer.emitSignal(path: testPath, interface: testInterface, member: "Posted", ["Shared"])
                #expect(try await next(received).body == ["Shared"])
                consumer.cancel()
                _ = try await withTimeout(.seconds(10), "the consumer to end") { await consumer.value }
                await listener.flush()  // anything it sent to the daemon has been handled
                #expect(try await rulesOfListener().count == 1)

                // `next` breaks out of a `for await` over the second stream, which then goes
                // out of scope.
                #expect(try await next(second).body == ["Shared"])
            }
            // The second stream is gone: the rule must go.
            try await eventually("the rule to leave the daemon") { try await rulesOfListener().isEmpty }

            // Subscribing again installs it again.
            let again = try await listener.signals(matching: Self.postedRule("Shared"))
            #expect(try await rulesOfListener().count == 1)
            try observer.emitSignal(path: testPath, interface: testInterface, member: "Posted", ["Shared"])
            #expect(try await next(again).body == ["Shared"])
        }
    }

    /// Closing the connection ends its subscriptions.
    @Test(.timeLimit(.minutes(3)))
    func closingEndsSubscriptions() async throws {
        try await withConnections(1) { _, connections in
            let connection = connections[0]
            let posted = try await connection.signals(matching: Self.postedRule("X"))
            await connection.close()
            #expect(!connection.isConnected)
            await #expect(throws: StreamEnded.self) { try await next(posted) }
        }
    }
}

extension SignalTests {
    /// `onSignal` handlers see every matching signal, in the order sent, before a later reply
    /// on the same connection resumes its caller; cancelling ends the subscription.
    @Test(.timeLimit(.minutes(3)))
    func handlersRunInOrderBeforeALaterReply() async throws {
        try await withConnections(2) { _, connections in
            let (listener, emitter) = (connections[0], connections[1])
            let seen = Mutex<[UInt32]>([])
            let subscription = try await listener.onSignal(
                matching: MatchRule(interface: testInterface, member: "Counted")
            ) { message in
                seen.withLock { $0.append(message.body[1].uint32 ?? 0) }
            }
            for count in 0..<200 as Range<UInt32> {
                try emitter.emit("Counted", of: Self.interface, from: testPath, ["n", .uint32(count)])
            }
            await emitter.flush()
            // The bus delivered the signals ahead of this reply, so the handler has run for each.
            _ = try await listener.call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                interface: "org.freedesktop.DBus.Peer", member: "Ping")
            #expect(seen.withLock { $0 } == Array(0..<200))
            subscription.cancel()
            subscription.cancel()
            try emitter.emit("Counted", of: Self.interface, from: testPath, ["n", .uint32(999)])
            await emitter.flush()
            _ = try await listener.call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                interface: "org.freedesktop.DBus.Peer", member: "Ping")
            #expect(seen.withLock { $0.count } == 200)
        }
    }
}
