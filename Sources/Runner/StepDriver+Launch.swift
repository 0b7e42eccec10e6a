import DeviceLaunch
import DeviceProcesses
import Foundation
import Scenario

// Launching an app: the open-files check, the wait for its last process to leave the bus, the spawn.

extension StepDriver {
    /// The descriptors the bus keeps for itself and for the hub, the runner and the guard.
    static let busDescriptorsBesideApps = 16
    /// What the runner opens per app: its stdout pipe and its log's pipe, the fence's watch
    /// (`FenceWatch`), and a pidfd while it waits for it.
    static let runnerDescriptorsPerApp = 4

    /// The bus holds one descriptor per app and the runner a few; both have the runner's limit
    /// of open files (raised to the hard limit at start): past it, an app's launch would fail
    /// with "Too many open files", which says neither what to change nor by how much.
    private func checkOpenFiles(toLaunch name: String) throws {
        guard let limit = openFileLimit() else { return }
        let bus = running.count + 1 + Self.busDescriptorsBesideApps
        // /proc/self/fd is listed only near the limit, not at every launch of a large fleet.
        let appsShare = (running.count + 1) * Self.runnerDescriptorsPerApp
        let runner = appsShare * 2 > limit ? openDescriptorCount() + Self.runnerDescriptorsPerApp : appsShare
        guard max(bus, runner) > limit else { return }
        let (needed, process) = bus >= runner ? (bus, "the device's bus") : (runner, "the runner")
        throw StepError(
            description:
                "launch \(name): \(running.count + 1) apps at once need about \(needed) open files in \(process),"
                + " over this machine's limit of \(limit) (`ulimit -Hn`); raise the hard limit to run this fleet")
    }

    /// Returns once the bus has dropped the connection `uniqueName` of a process that ended (at
    /// most 5 s): until then the app's name is still that connection's, and a relaunch right
    /// after a `terminate` or `crash` could not take it.
    private func untilOffTheBus(_ uniqueName: String) async {
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline, (try? await connection.nameOwner(uniqueName)) != nil {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// How many descriptors this process has open.
    private func openDescriptorCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    /// `spawn`: starts the app's process, once the open files allow it and the name of its
    /// last process has left the bus.
    func spawn(_ name: String) async throws {
        guard let entry = scenario.apps.first(where: { $0.name == name }) else { return }
        try checkOpenFiles(toLaunch: name)
        let spec = AppSpec(
            name: name, sdk: entry.sdk, backgroundMode: entry.background, backgroundTask: entry.backgroundTask,
            backgroundTime: scenario.device.backgroundTime(for: entry.sdk), cleanup: entry.cleanup,
            executable: entry.executable,
            hookDirectory: scenario.folder, scanSkips: entry.scanSkips, infoPlist: entry.infoPlist)
        if let ended = ended.removeValue(forKey: name) { await untilOffTheBus(ended) }
        let app: LaunchedApp
        do {
            app = try await LaunchedApp.launch(
                spec, bus: device.bus.address, in: device.directory, connection: connection, sdlab: sdlab)
        } catch {
            failedLaunches[name, default: 0] += 1
            throw error
        }
        running[name] = app
        launchedPIDs.insert(app.answering.pid)
        frozen[name] = nil
    }
}
