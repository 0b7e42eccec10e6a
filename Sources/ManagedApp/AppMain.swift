import ArgumentParser
import DBusKit
import DeviceContract
import DeviceProcesses
import FoundationEssentials
import Glibc
import SharedDevice

/// Runs an app process to its end: connect, start, say `ready`, serve until SIGTERM (the work
/// in hand finishes first) or until the bus goes away.
public enum AppMain {
    public static let discussion = """
        A managed app with an embedded simulated SDK: msal (iOS), msal-android or ws1. It keeps \
        its data in --container, serves dev.sdlab.App1 at /dev/sdlab/App under dev.sdlab.App.NAME, \
        and appends its events to --trace. MSAL apps check the account at launch, on every return \
        to the foreground, when told it was resumed and on the broker's posts; Workspace ONE apps only at \
        launch and on a return to the foreground. A cleanup cut short by a crash is finished at \
        the next launch, before anything else. Says `ready` (on --ready-fd, else stdout) once the \
        launch check is done; SIGTERM lets the work in hand finish, then exits 0. Exit 3 when it cannot start.
        """

    /// `cleanupWork` is the app's own cleanup: the app must then be run with `--cleanup own`
    /// (see `AppHost.init`).
    public static func run(_ options: AppOptions, cleanupWork: CleanupWork? = nil) async throws {
        TerminationSignals.install()
        let configuration = AppConfiguration(options)
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
        AppOptions.sayReady(on: options.readyDescriptor)
        let terminated = await firstOf([
            { @Sendable in
                _ = await TerminationSignals.next()
                return true
            },
            { @Sendable in
                await connection.closed()
                return false
            },
        ])
        if terminated { await host.finishWork() }
        await connection.close()
    }

    private static func cannotStart(_ name: String, _ why: String) -> ExitCode {
        writeAll("the app \(name) cannot start: \(why)\n".utf8, to: STDERR_FILENO)
        return ExitCode(ExitCodes.environment)
    }
}
