import DBusKit
import DeviceContract
import DeviceLaunch
import DeviceProcesses
import Foundation
import LeakScan
import SharedDevice
import Synchronization
import TestSupport
import Testing

/// A device of the test's own, started as the runner starts one (bus and hub), with the apps
/// the test launches. Every process is stopped by PID afterwards, whatever the test did.
final class AppDevice: Sendable {
    let device: RunningDevice
    let connection: Connection
    private let started = Mutex<[ChildProcess]>([])
    /// The latest app launched under each name.
    private let launched = Mutex<[String: LaunchedApp]>([:])

    var directory: String { device.directory }
    var address: String { device.bus.address }

    private init(device: RunningDevice, connection: Connection) {
        self.device = device
        self.connection = connection
    }

    static func with(_ body: (AppDevice) async throws -> Void) async throws {
        let directory = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-apps")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let device = try await RunningDevice.start(in: directory, detached: true, sdlab: sdlabPath)
        let connection: Connection
        do {
            connection = try await Connection.connect(to: device.bus.address)
        } catch {
            device.stop()
            throw error
        }
        let lab = AppDevice(device: device, connection: connection)
        do {
            try await body(lab)
        } catch {
            await lab.tearDown()
            throw error
        }
        await lab.tearDown()
    }

    private func tearDown() async {
        await connection.close()
        for process in started.withLock({ $0 }) where process.isRunning {
            process.signal(SIGKILL)
            _ = process.waitForExit(timeout: .seconds(5))
        }
        device.stop()
    }

    /// Launches an app (cold start) and returns once it is ready.
    @discardableResult
    func launch(_ spec: AppSpec) async throws -> LaunchedApp {
        let app = try await LaunchedApp.launch(
            spec, bus: address, in: directory, connection: connection, sdlab: sdlabPath)
        adopt(app.process)
        launched.withLock { $0[spec.name] = app }
        return app
    }

    /// Counts a process the test started by hand among those stopped at the end.
    func adopt(_ process: ChildProcess) { started.withLock { $0.append(process) } }

    /// Calls to the app launched last under `name`.
    func app(_ name: String) -> AppClient {
        guard let app = launched.withLock({ $0[name] }) else { fatalError("the test launched no app \(name)") }
        return AppClient(connection, app: app, timeout: .seconds(20))
    }

    func hub(_ interface: String, _ member: String, _ arguments: [DBusValue] = []) async throws {
        try await connection.hub(interface, member, arguments)
    }

    /// What the device attacker reads in one app's container.
    func readable(in app: String) -> [Canary] {
        LeakScanner(containersFolder: RunFolder.containers(in: directory)).scan().filter { $0.app == app }.map(\.canary)
    }

    /// One process's trace events, as JSON objects.
    func trace(_ file: String) throws -> [[String: Any]] {
        try TraceEvent.lines(in: RunFolder.traceFolder(in: directory) + "/" + file).map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    func events(_ file: String) throws -> [String] { try trace(file).compactMap { $0["event"] as? String } }
}

/// How many descriptors a process holds open (-1 when it cannot be read).
func openDescriptors(of pid: Int32) -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
}
