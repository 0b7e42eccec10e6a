import DBusKit
import DeviceProcesses
import TestSupport
import Testing

/// Well-known names: requests, owners and the bus's NameOwnerChanged signals.
@Suite(.tags(.device), .devicesWanted) struct NameTests {
    @Test(.timeLimit(.minutes(3)))
    func requestAndQueryOwners() async throws {
        try await withConnections(2) { _, connections in
            let (first, second) = (connections[0], connections[1])
            #expect(try await first.nameOwner(testName) == nil)
            #expect(try await first.requestName(testName) == .primaryOwner)
            #expect(try await first.requestName(testName) == .alreadyOwner)
            #expect(try await second.requestName(testName, flags: [.doNotQueue]) == .exists)
            #expect(try await second.nameOwner(testName) == first.uniqueName)
            #expect(try await second.nameOwner(first.uniqueName) == first.uniqueName)
            #expect(try await second.nameOwner("dev.test.Unowned") == nil)

            // Queued without doNotQueue, and promoted when the owner lets go.
            #expect(try await second.requestName(testName, flags: []) == .inQueue)
            try await first.releaseName(testName)
            #expect(try await first.nameOwner(testName) == second.uniqueName)
        }
    }

    /// Acquisition, release and the owner's disconnection, each with its old and new owner.
    @Test(.timeLimit(.minutes(3)))
    func nameOwnerChanges() async throws {
        try await withConnections(3) { daemon, connections in
            let (watcher, first, second) = (connections[0], connections[1], connections[2])
            // Name, old owner, new owner ("" for none).
            func nextChange(_ changes: AsyncStream<Connection.NameOwnerChange>) async throws -> [String] {
                let change = try await next(changes)
                return [change.name, change.oldOwner, change.newOwner]
            }
            let changes = try await ownerChanges(of: testName, on: watcher)
            // Another name's changes are filtered out.
            #expect(try await first.requestName("dev.test.Other") == .primaryOwner)

            #expect(try await first.requestName(testName) == .primaryOwner)
            #expect(try await nextChange(changes) == [testName, "", first.uniqueName])
            try await first.releaseName(testName)
            #expect(try await nextChange(changes) == [testName, first.uniqueName, ""])

            #expect(try await second.requestName(testName) == .primaryOwner)
            #expect(try await nextChange(changes) == [testName, "", second.uniqueName])
            await second.close()
            #expect(try await nextChange(changes) == [testName, second.uniqueName, ""])
            #expect(try await watcher.nameOwner(testName) == nil)
        }
    }
}
