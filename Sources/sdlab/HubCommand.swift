import ArgumentParser
import DeviceContract
import DeviceProcesses
import Hub
import HubFiles
import SharedDevice

struct HubCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hub",
        abstract: "Run the hub process (started by `device up` and `run`).",
        discussion: """
            Serves dev.sdlab.Hub on the device bus: the broker, the Hub and the console's user \
            directory. With --state it saves every change to that file and, when the file \
            exists, carries on from it (a restart after a crash); a file it cannot trust is \
            refused (exit 3). A new device takes its policy and users from --setup (JSON \
            written by the runner, passwords hashed), else the defaults: `stage` as staging \
            user, `cou1`, `cou2`, each password equal to the name. With --name-file it records \
            its unique bus name there before it takes dev.sdlab.Hub, for clients that call it by \
            that name only; it then serves even when another process holds dev.sdlab.Hub. Prints \
            `ready` on stdout once it answers calls; stops cleanly on SIGTERM or SIGINT, or when \
            the bus goes away.
            """
    )

    @OptionGroup var busOptions: BusOptions

    @Option(help: "The state file: read at start if it exists, rewritten atomically on every change.")
    var state: String?

    @Option(help: "A new device's policy and users (JSON, passwords hashed).")
    var setup: String?

    @Option(help: "The file the hub appends its trace events to (session changes, posts).")
    var trace: String?

    @Option(help: "The file to record the hub's unique bus name in (clients given it call that name only).")
    var nameFile: String?

    @Option(
        help: ArgumentHelp(
            "A file the runner writes a point of a change in (\(HubCrashPoint.allCases.map(\.rawValue).joined(separator: ", "))): the hub takes it at the next session change and dies there, for a scenario's hub_crash:.",
            valueName: "file"))
    var crashFile: String?

    func run() async throws {
        TerminationSignals.install()
        let store = state.map(StateFile.init(path:))
        let initial: HubState
        do {
            initial = try HubProcess.loadState(from: store) { try setup.map(HubSetup.read(from:)) ?? HubSetup() }
        } catch {
            throw failure("\(error)", code: ExitCodes.environment)
        }
        let traceLog: TraceLog?
        do {
            traceLog = try trace.map { try TraceLog(path: $0, process: "hub") }
        } catch {
            throw failure("\(error)", code: ExitCodes.environment)
        }
        let connection = try await busOptions.connect()
        do {
            let held = try await HubProcess.serve(
                initial, savingTo: store, trace: traceLog, on: connection, recordingNameIn: nameFile,
                crashFile: crashFile)
            if let held { note("sdlab hub: \(held)") }
        } catch {
            await connection.close()
            throw failure("the hub cannot serve: \(error)", code: ExitCodes.environment)
        }
        traceLog?.record(
            .ready,
            [
                .generation: .uint(initial.model.session.generation),
                .broker: .string(initial.model.policy.broker.rawValue),
            ])
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
        traceLog?.close()
    }
}
