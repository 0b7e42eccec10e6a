import ArgumentParser
import DeviceProcesses
import ManagedApp
import SharedDevice

extension SDKKind: ExpressibleByArgument {}

struct AppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app",
        abstract: "Run one managed app process (started by `run`).",
        discussion: """
            A managed app with an embedded simulated SDK: msal (iOS), msal-android or ws1. It \
            keeps its data in --container, serves dev.sdlab.App1 at /dev/sdlab/App under \
            dev.sdlab.App.NAME, and appends its events to --trace. MSAL apps check the account \
            at launch, on every return to the foreground, after SIGCONT and on the broker's \
            posts; Workspace ONE apps only at launch and on a return to the foreground. A \
            cleanup cut short by a crash is finished at the next launch, before anything else. \
            Prints `ready` on stdout once the launch check is done; SIGTERM lets the work in hand \
            finish, then exits 0.
            """
    )

    @OptionGroup var busOptions: BusOptions

    @Option(help: "The app's name: letters, digits and _, not starting with a digit.")
    var name: String

    @Option(help: "The embedded SDK: \(SDKKind.allCases.map(\.rawValue).joined(separator: ", ")).")
    var sdk: SDKKind

    @Flag(help: "Keep running in the background (else the runner suspends the app there).")
    var backgroundMode = false

    @Option(help: "What to do with the previous user's data: \(CleanupPolicy.names.joined(separator: ", ")).")
    var cleanup = "wipe-all"

    @Option(help: "Run this shell command as the cleanup instead of a policy (SDLAB_APP, SDLAB_CONTAINER, SDLAB_PREVIOUS_USER, SDLAB_CURRENT_USER, SDLAB_REASON are set).")
    var hook: String?

    @Option(help: "How long a cleanup hook may run.")
    var hookTimeout: Duration = .seconds(10)

    @Option(help: "The app's container folder (created 0700).")
    var container: String

    @Option(help: "The file the app appends its trace events to.")
    var trace: String?

    func validate() throws {
        guard AppConfiguration.isValidName(name) else {
            throw ValidationError("--name \(name): letters, digits and _ only, not starting with a digit")
        }
        guard hook != nil || CleanupPolicy(name: cleanup) != nil else {
            throw ValidationError("--cleanup \(cleanup): one of \(CleanupPolicy.names.joined(separator: ", "))")
        }
    }

    func run() async throws {
        TerminationSignals.install()
        let policy = hook.map(CleanupPolicy.hook(command:)) ?? CleanupPolicy(name: cleanup)!
        let configuration = AppConfiguration(name: name, sdk: sdk, backgroundMode: backgroundMode, policy: policy,
                                             container: container, trace: trace, hookTimeout: hookTimeout)
        let connection = try await busOptions.connect()
        let host: AppHost
        do {
            host = try AppHost(configuration, connection: connection)
            try await host.start()
        } catch {
            await connection.close()
            throw failure("the app \(name) cannot start: \(error)", code: ExitCodes.environment)
        }
        emitLine("ready")
        let ended = await firstOf([
            { @Sendable in _ = await TerminationSignals.next(); return true },
            { @Sendable in await connection.closed(); return false },
        ])
        if ended { await host.finishWork() }
        await connection.close()
    }
}
