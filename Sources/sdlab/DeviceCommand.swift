import ArgumentParser
import DBusKit
import DeviceContract
import DeviceLaunch
import DeviceProcesses
import Foundation
import HubFiles
import RunResults
import Scenario

struct DeviceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "Start or stop a device (bus and hub) to poke by hand.",
        subcommands: [Up.self, Down.self]
    )

    struct Up: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Start a device: a private dbus-daemon and the hub.",
            discussion: """
                With --scenario, the hub takes the scenario's `device` settings and `users` (not its \
                apps or steps: `sdlab run` starts apps; `sdlab app` starts one by hand); without, \
                the console has the default users: `stage` (multi-user staging), `cou1` and \
                `cou2`, each password equal to the name. An invalid scenario is exit 2. Prints DBUS_SESSION_BUS_ADDRESS=… (for gdbus, dbus-send, busctl and `sdlab notify`) \
                and SDLAB_DEVICE_DIR=… on stdout. The hub saves its state in the run folder: a device \
                started again with the same --dir carries on where it was. Without --detach it runs until Ctrl-C, then stops \
                everything; with --detach it returns once the hub answers, and `sdlab device down` \
                stops it. Exit code 3 when the device cannot start (no dbus-daemon, a bad bus config).
                """
        )

        @Option(help: "The run folder (default: a new folder under $TMPDIR or /tmp).")
        var dir: String?

        @Option(help: "A scenario whose `device` and `users` set up the hub (its apps are not started).")
        var scenario: String?

        @Flag(help: "Return once the hub answers and leave the device running.")
        var detach = false

        func run() async throws {
            let setup = try scenario.map(Self.setup(from:))
            if !detach { TerminationSignals.install() }  // Ctrl-C while starting stops it once up
            let device: RunningDevice
            do {
                let directory = try dir ?? DevicePaths.makeTemporaryDirectory(prefix: "sdlab-device")
                if FileManager.default.fileExists(atPath: RunFolder.hubState(in: directory)) {
                    note("carrying on from the device state saved in \(directory)")
                }
                do {
                    device = try await RunningDevice.start(in: directory, detached: detach, setup: setup)
                } catch {
                    if dir == nil { try? FileManager.default.removeItem(atPath: directory) }
                    throw error
                }
            } catch let error as LaunchError {
                throw failure(error.description, code: ExitCodes.environment)
            }
            emitLine("DBUS_SESSION_BUS_ADDRESS=\(device.bus.address)")
            emitLine("SDLAB_DEVICE_DIR=\(device.directory)")
            if detach { return }
            note("device running; Ctrl-C stops it")
            let reason = await device.waitForEnd()
            device.stop()
            note("device stopped (\(reason))")
        }

        /// The hub's setup from a scenario's `device` and `users`; an invalid scenario is exit 2.
        static func setup(from path: String) throws -> HubSetup {
            do throws(ScenarioProblems) {
                let scenario = try Scenario.load(path: path)
                if !scenario.apps.isEmpty {
                    note(
                        "the scenario's apps (\(AppNames.listed(scenario.apps.map(\.name)))) are not started: "
                            + "`sdlab run` starts them, `sdlab app` starts one by hand")
                }
                return scenario.hubSetup
            } catch {
                throw failure(error.description, code: ExitCodes.usage)
            }
        }
    }

    struct Down: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop a device started with `device up --detach`.",
            discussion: "Stops the hub, then the bus, by the PIDs recorded in the run folder.")

        @Option(help: "The run folder `device up` printed (default: $SDLAB_DEVICE_DIR).")
        var dir: String?

        func run() async throws {
            guard let directory = dir ?? ProcessInfo.processInfo.environment["SDLAB_DEVICE_DIR"] else {
                throw failure("which device? pass --dir as `device up` printed it", code: ExitCodes.usage)
            }
            guard FileManager.default.fileExists(atPath: directory) else {
                throw failure("no run folder \(directory)", code: ExitCodes.usage)
            }
            let stopped = RunningDevice.stopRecorded(in: directory)
            note(
                stopped.isEmpty
                    ? "nothing was running in \(directory)"
                    : "stopped \(stopped.joined(separator: " and ")) in \(directory)")
        }
    }
}
