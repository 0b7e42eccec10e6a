import ArgumentParser
import DeviceContract
import DeviceProcesses
import Foundation

@main
struct SDLab: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sdlab",
        abstract: "Simulate a shared mobile device on a real D-Bus bus.",
        discussion: """
            A private dbus-daemon stands in for the device's notification center, a hub process \
            for the identity broker and the management Hub, and one process per managed app.
            """,
        subcommands: [
            RunCommand.self, CheckCommand.self, FuzzCommand.self, BenchCommand.self, DeviceCommand.self,
            NotifyCommand.self, HubCommand.self, AppCommand.self, GuardCommand.self, ReportCommand.self,
            CompareCommand.self, InitCommand.self, ScanCommand.self,
        ]
    )

    /// As ArgumentParser's, but a usage error exits 2 (Docs/outputs.md) instead of 64.
    static func main() async {
        Output.prepare()
        raiseOpenFileLimit()
        var adopts = false
        var failure: (any Error)?
        do {
            var command = try parseAsRoot()
            adopts = command is RunsDevicesToTheirEnd
            if adopts { Subreaper.adoptOrphans() }
            if let parsed = command as? AsyncParsableCommand {
                // Parsed here and run here, by this one task only.
                nonisolated(unsafe) var asyncCommand = parsed
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            failure = error
        }
        if adopts { Subreaper.stopEveryChild() }
        if let why = Output.failureOnExit {
            Output.write("sdlab: \(why)\n", to: STDERR_FILENO)
            Foundation.exit(ExitCodes.environment)
        }
        guard let failure else { return }
        guard exitCode(for: failure) == .validationFailure else { exit(withError: failure) }
        note(fullMessage(for: failure))
        exit(withError: ExitCode(ExitCodes.usage))
    }
}

/// A command whose devices start and end within it: nothing their processes started may
/// outlive it, so it adopts their orphans and stops whatever is left when it ends.
protocol RunsDevicesToTheirEnd {}

extension RunCommand: RunsDevicesToTheirEnd {}
extension FuzzCommand: RunsDevicesToTheirEnd {}
extension BenchCommand: RunsDevicesToTheirEnd {}
