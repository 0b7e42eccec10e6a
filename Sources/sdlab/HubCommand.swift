import ArgumentParser
import DeviceProcesses
import Hub

struct HubCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hub",
        abstract: "Run the hub process (started by `device up` and `run`).",
        discussion: """
            Serves dev.sdlab.Hub on the device bus: the broker, the Hub and the console's user \
            directory. Prints `ready` on stdout once it answers calls; stops cleanly on SIGTERM \
            or SIGINT, or when the bus goes away.
            """
    )

    @OptionGroup var busOptions: BusOptions

    func run() async throws {
        let connection = try await busOptions.connect()
        do {
            try await HubProcess.serve(on: connection)
        } catch {
            await connection.close()
            throw failure("the hub cannot serve: \(error)", code: ExitCodes.environment)
        }
        emitLine("ready")
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                _ = await TerminationSignals.next()
                await connection.close()
            }
            group.addTask { await connection.closed() }
            await group.next()
            group.cancelAll()
        }
        await connection.close()
    }
}
