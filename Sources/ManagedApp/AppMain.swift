import ArgumentParser
import DBusKit
import DeviceProcesses
import Foundation
import SharedDevice

extension SDKKind: ExpressibleByArgument {}

/// Durations on the command line as in scenarios: `250ms`, `5s`.
extension Duration: @retroactive ExpressibleByArgument {
    public init?(argument: String) {
        guard let parsed = Durations.parse(argument) else { return nil }
        self = parsed
    }
}

/// The options of an app process: `sdlab app` and any app a team builds on `SharedDeviceSDK`
/// take the same ones, so the runner starts either the same way.
public struct AppOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The device bus address (default: $DBUS_SESSION_BUS_ADDRESS).", valueName: "address"))
    var bus: String?

    @Option(help: "The app's name: letters, digits and _, not starting with a digit.")
    var name: String

    @Option(help: "The embedded SDK: \(SDKKind.allCases.map(\.rawValue).joined(separator: ", ")).")
    var sdk: SDKKind

    @Flag(help: "Keep running in the background (else the runner suspends the app there).")
    var backgroundMode = false

    @Option(help: "What to do with the previous user's data: \(CleanupPolicy.names.joined(separator: ", ")), or own (an app with cleanup code of its own).")
    var cleanup = "wipe-all"

    @Option(help: "Run this shell command as the cleanup instead of a policy (SDLAB_APP, SDLAB_CONTAINER, SDLAB_PREVIOUS_USER, SDLAB_CURRENT_USER and SDLAB_REASON are set).")
    var hook: String?

    @Option(help: ArgumentHelp("The folder the hook runs in (default: the current one).", valueName: "folder"))
    var hookDirectory: String?

    @Option(help: ArgumentHelp("What the hook or the app's own cleanup keeps of another user: \(RecordKind.keepable.map(\.rawValue).joined(separator: ", ")); repeatable.", valueName: "kind"))
    var keeps: [String] = []

    @Option(help: "How long a cleanup hook may run (e.g. 10s, 500ms).")
    var hookTimeout: Duration = .seconds(10)

    @Option(help: "The app's container folder (created 0700).")
    var container: String

    @Option(help: "The file the app appends its trace events to.")
    var trace: String?

    public init() {}

    public func validate() throws {
        guard AppName.isValid(name) else {
            throw ValidationError("--name \(name): letters, digits and _ only, not starting with a digit")
        }
        guard hook != nil || CleanupPolicy(name: cleanup) != nil else {
            throw ValidationError("--cleanup \(cleanup): one of \(CleanupPolicy.names.joined(separator: ", ")) or own")
        }
        let keepable = RecordKind.keepable.map(\.rawValue)
        if let kind = keeps.first(where: { !keepable.contains($0) }) {
            throw ValidationError("--keeps \(kind): one of \(keepable.joined(separator: ", ")) (user data is never kept)")
        }
        guard keeps.isEmpty || hook != nil || cleanup == "own" else {
            throw ValidationError("--keeps declares what a hook or the app's own cleanup keeps: add --hook or --cleanup own")
        }
    }

    public var configuration: AppConfiguration {
        let kept = Set(keeps.compactMap(RecordKind.init(rawValue:)))
        let policy: CleanupPolicy = switch CleanupPolicy(name: cleanup) ?? .wipeAll {
        case _ where hook != nil: .hook(command: hook!, keeps: kept)
        case .own: .own(keeps: kept)
        case let named: named
        }
        return AppConfiguration(name: name, sdk: sdk, backgroundMode: backgroundMode, policy: policy, container: container,
                                trace: trace, hookTimeout: hookTimeout, hookDirectory: hookDirectory)
    }
}

/// Runs an app process to its end: connect, start, say `ready`, serve until SIGTERM (the work
/// in hand finishes first) or until the bus goes away.
public enum AppMain {
    public static let discussion = """
        A managed app with an embedded simulated SDK: msal (iOS), msal-android or ws1. It keeps \
        its data in --container, serves dev.sdlab.App1 at /dev/sdlab/App under dev.sdlab.App.NAME, \
        and appends its events to --trace. MSAL apps check the account at launch, on every return \
        to the foreground, when told it was resumed and on the broker's posts; Workspace ONE apps only at \
        launch and on a return to the foreground. A cleanup cut short by a crash is finished at \
        the next launch, before anything else. Prints `ready` on stdout once the launch check is \
        done; SIGTERM lets the work in hand finish, then exits 0. Exit 3 when it cannot start.
        """

    /// `cleanupWork` is the app's own cleanup: the app must then be run with `--cleanup own`
    /// (see `AppHost.init`).
    public static func run(_ options: AppOptions, cleanupWork: CleanupWork? = nil) async throws {
        TerminationSignals.install()
        let configuration = options.configuration
        guard let address = options.bus ?? ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] else {
            throw ValidationError("no device bus: pass --bus or set DBUS_SESSION_BUS_ADDRESS")
        }
        let connection: Connection
        let host: AppHost
        do {
            connection = try await Connection.connect(to: address)
        } catch {
            throw cannotStart(configuration.name, "cannot reach the device bus at \(address): \(error)")
        }
        do {
            host = try AppHost(configuration, connection: connection, cleanupWork: cleanupWork)
            try await host.start()
        } catch {
            await connection.close()
            throw cannotStart(configuration.name, "\(error)")
        }
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        let terminated = await firstOf([
            { @Sendable in _ = await TerminationSignals.next(); return true },
            { @Sendable in await connection.closed(); return false },
        ])
        if terminated { await host.finishWork() }
        await connection.close()
    }

    private static func cannotStart(_ name: String, _ why: String) -> ExitCode {
        FileHandle.standardError.write(Data("the app \(name) cannot start: \(why)\n".utf8))
        return ExitCode(3)
    }
}
