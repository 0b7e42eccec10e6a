import DBusKit
import DeviceProcesses
import Testing

@Suite struct SmokeTests {
    @Test(.timeLimit(.minutes(1))) func pingTheBus() async throws {
        try await BusDaemon.withTemporary { daemon, _ in
            let connection = try await Connection.connect(to: daemon.address)
            #expect(connection.uniqueName.hasPrefix(":"))
            let id = try await connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                               interface: "org.freedesktop.DBus", member: "GetId")
            #expect(id.first?.string?.count == 32)
            await connection.close()
        }
    }
}
