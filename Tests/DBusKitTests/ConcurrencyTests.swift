import DBusKit
import DeviceProcesses
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Many calls in flight on one connection: every reply reaches the call it answers.
@Suite(.tags(.device), .devicesWanted) struct ConcurrencyTests {
    static let callCount = 1_000

    static let interface = DBusInterface(
        testInterface,
        methods: [
            .init("Sync", in: [.init("index", "u")], out: [.init("index", "u"), .init("text", "s")]) { call in
                [call.arguments[0], .string("sync \(call.arguments[0].uint32!)")]
            },
            .init(
                "Async", in: [.init("index", "u")], out: [.init("index", "u"), .init("text", "s")],
                async: { call in
                    // Let the handlers interleave, so replies leave out of order.
                    for _ in 0..<Int(call.arguments[0].uint32! % 4) { await Task.yield() }
                    return [call.arguments[0], .string("async \(call.arguments[0].uint32!)")]
                }),
        ])

    @Test(.timeLimit(.minutes(3)), arguments: ["Sync", "Async"])
    func thousandConcurrentCalls(method: String) async throws {
        try await withConnections(2) { _, connections in
            let (server, client) = (connections[0], connections[1])
            try server.export([Self.interface], at: testPath)
            let destination = server.uniqueName
            let prefix = method.lowercased()
            let replies = try await withThrowingTaskGroup(of: (UInt32, [DBusValue]).self) { group in
                for index in 0..<UInt32(Self.callCount) {
                    group.addTask {
                        let reply = try await client.call(
                            destination: destination, path: testPath, interface: testInterface,
                            member: method, [.uint32(index)], timeout: .seconds(30))
                        return (index, reply)
                    }
                }
                var replies: [UInt32: [DBusValue]] = [:]
                for try await (index, reply) in group { replies[index] = reply }
                return replies
            }
            #expect(replies.count == Self.callCount)
            let mismatched = replies.filter { index, reply in reply != [.uint32(index), .string("\(prefix) \(index)")] }
            #expect(mismatched.isEmpty, "\(mismatched.prefix(5))")
        }
    }

    /// Calls in both directions at once over the same pair of connections.
    @Test(.timeLimit(.minutes(3)))
    func callsBothWays() async throws {
        try await withConnections(2) { _, connections in
            for connection in connections { try connection.export([Self.interface], at: testPath) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<UInt32(200) {
                    let (caller, callee) =
                        index % 2 == 0 ? (connections[0], connections[1]) : (connections[1], connections[0])
                    group.addTask {
                        let reply = try await caller.call(
                            destination: callee.uniqueName, path: testPath, interface: testInterface,
                            member: "Async", [.uint32(index)], timeout: .seconds(30))
                        #expect(reply.first == .uint32(index))
                    }
                }
                try await group.waitForAll()
            }
        }
    }
}

/// A task that prefers a connection as its executor runs on that connection's thread.
@Suite(.tags(.device), .devicesWanted) struct ExecutorTests {
    @Test(.timeLimit(.minutes(3)))
    func callsAndSignalsResumeOnTheConnectionThread() async throws {
        try await withConnections(2) { _, connections in
            let (client, server) = (connections[0], connections[1])
            try server.export([echoInterface("s")], at: testPath)
            let threads = try await withTaskExecutorPreference(client) { () async throws -> [UInt] in
                var threads: [UInt] = [UInt(pthread_self())]
                for index in 0..<50 {
                    let reply = try await client.call(
                        destination: server.uniqueName, path: testPath,
                        interface: testInterface, member: "Echo", [.string("\(index)")])
                    #expect(reply == [.string("\(index)")])
                    threads.append(UInt(pthread_self()))
                }
                return threads
            }
            #expect(Set(threads).count == 1, "ran on \(Set(threads).count) threads")
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func workPreferringAClosedConnectionStillRuns() async throws {
        try await withConnections(1) { daemon, connections in
            let connection = try await Connection.connect(to: daemon.address)
            await connection.close()
            let value = await withTaskExecutorPreference(connection) { () async -> Int in
                await Task.yield()
                return 42
            }
            #expect(value == 42)
            _ = connections
        }
    }
}
