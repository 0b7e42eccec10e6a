import DBusKit
import DeviceContract
import DeviceProcesses
import Foundation
import SharedDevice

/// Where a run folder keeps what its processes write.
public enum RunFolder {
    public static func container(of app: String, in directory: String) -> String { directory + "/containers/" + app }
    public static func trace(of app: String, in directory: String) -> String { directory + "/trace/app-\(app).jsonl" }
    public static func hubTrace(in directory: String) -> String { directory + "/trace/hub.jsonl" }
    public static func log(of app: String, in directory: String) -> String { directory + "/logs/app-\(app).log" }

    /// Creates the folders (0700).
    public static func prepare(_ directory: String) throws(LaunchError) {
        for folder in ["containers", "trace", "logs"] { try DevicePaths.prepareDirectory(directory + "/" + folder) }
    }
}

/// How the runner starts an app (a scenario's `apps` entry).
public struct AppSpec: Sendable, Equatable {
    public var name: String
    public var sdk: SDKKind
    public var backgroundMode: Bool
    public var cleanup: CleanupPolicy
    /// An app a team built on SharedDeviceSDK, run instead of `sdlab app`.
    public var executable: String?
    /// The folder a cleanup hook runs in: the scenario file's, so its relative paths are the file's.
    public var hookDirectory: String?
    /// The app's `--traced-posts-per-second` (nil: its default); the bench traces every post.
    public var tracedPostsPerSecond: Int?

    public init(
        name: String, sdk: SDKKind, backgroundMode: Bool = false, cleanup: CleanupPolicy = .wipeAll,
        executable: String? = nil, hookDirectory: String? = nil, tracedPostsPerSecond: Int? = nil
    ) {
        self.tracedPostsPerSecond = tracedPostsPerSecond
        self.name = name
        self.sdk = sdk
        self.backgroundMode = backgroundMode
        self.cleanup = cleanup
        self.executable = executable
        self.hookDirectory = hookDirectory
    }

    /// The app's command line (`AppOptions`, as the app declares it) in a run folder.
    func arguments(bus: String, directory: String) -> [String] {
        AppOptions.commandLine(
            name: name, sdk: sdk, backgroundMode: backgroundMode, cleanup: cleanup,
            hookDirectory: hookDirectory, container: RunFolder.container(of: name, in: directory),
            trace: RunFolder.trace(of: name, in: directory), bus: bus,
            hubNameFile: RunningDevice.hubNameFile(in: directory), tracedPostsPerSecond: tracedPostsPerSecond)
    }
}

/// An app process the runner started: lifecycle signals go to its PID.
public struct LaunchedApp: Sendable {
    public let spec: AppSpec
    public let process: ChildProcess
    /// Its container folder.
    public let container: String

    /// Starts the app and returns once it says `ready` (its launch check done). On failure
    /// the process is stopped and the error carries what it said.
    public static func launch(
        _ spec: AppSpec, bus: String, in directory: String,
        sdlab: String = DevicePaths.executablePath(),
        timeout: Duration = .seconds(15)
    ) async throws(LaunchError) -> LaunchedApp {
        try RunFolder.prepare(directory)
        let log = RunFolder.log(of: spec.name, in: directory)
        let arguments = spec.arguments(bus: bus, directory: directory)
        let executable: String
        if let own = spec.executable { executable = own } else { executable = try appExecutable(beside: sdlab) }
        let (process, stdout) = try ChildProcess.spawn(
            executable, arguments, stdout: .pipe, stderr: .file(log), newSession: true)
        let reader = LineReader(fd: stdout!)
        let line = await offPool { reader.readLine(timeout: timeout) }
        guard line == "ready" else {
            // No line: the pipe closed because the process ended, or the time ran out.
            // Reaped when it ended: its PID is then no longer ours to signal.
            let ended = process.exitStatus(timeout: .milliseconds(200))
            if ended == nil { process.stop(grace: .seconds(2)) }
            let said = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").trimmingCharacters(
                in: .whitespacesAndNewlines)
            let why = ended.map { "it ended (\($0)) before it was ready" } ?? "not ready within \(timeout)"
            throw LaunchError("the app \(spec.name) did not start: \(why)\(said.isEmpty ? "" : "; it said: \(said)")")
        }
        return LaunchedApp(spec: spec, process: process, container: RunFolder.container(of: spec.name, in: directory))
    }

    /// SIGSTOP: the process really stops and hears nothing until resumed. Returns once it has
    /// stopped, so nothing sent afterwards reaches it.
    public func suspend() { process.suspend() }
    /// SIGCONT.
    public func resume() { process.signal(SIGCONT) }
    /// SIGKILL, then reaped; a cleanup hook it was running, and anything else it started in
    /// its process group, dies with it, as work does on a phone.
    public func crash() {
        process.signal(SIGKILL)
        process.stop(grace: .seconds(5), group: true)
        HookRecord.stopLeftover(in: container)
    }
    /// A graceful exit: SIGTERM (and SIGCONT, should it be stopped); SIGKILL after `grace`;
    /// then whatever it left in its process group (a launcher script's children) is killed.
    public func terminate(grace: Duration = .seconds(10)) {
        process.signal(SIGCONT)
        process.stop(grace: grace, group: true)
        HookRecord.stopLeftover(in: container)
    }
}

extension LaunchedApp {
    /// `sdlab-app`, which the package builds beside sdlab: what `sdlab app` runs, in a smaller process.
    static func appExecutable(beside sdlab: String) throws(LaunchError) -> String {
        let folder = sdlab.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let path = (folder.isEmpty ? "." : folder) + "/sdlab-app"
        guard access(path, X_OK) == 0 else {
            throw LaunchError("no app executable at \(path): build the whole package (`swift build`), not sdlab alone")
        }
        return path
    }
}

/// Calls to one app's `dev.sdlab.App1`.
public struct AppClient: Sendable {
    public let connection: Connection
    public let name: String
    public var timeout: Duration

    public init(_ connection: Connection, app name: String, timeout: Duration = .seconds(30)) {
        self.connection = connection
        self.name = name
        self.timeout = timeout
    }

    @discardableResult
    public func call(_ method: AppBus.Method, _ arguments: [DBusValue] = []) async throws -> [DBusValue] {
        try await connection.call(
            destination: AppBus.name(of: name), path: AppBus.path, interface: AppBus.interface,
            member: method.rawValue, arguments, timeout: timeout)
    }

    public func foreground() async throws { try await call(.foreground) }
    public func background() async throws { try await call(.background) }
    public func resumed() async throws { try await call(.resumed) }
    public func settle() async throws { try await call(.settle) }
    public func signOut() async throws { try await call(.signOut) }
    public func signIn(_ user: String, password: String) async throws {
        try await call(.signIn, [.string(user), .string(password)])
    }
    public func unlock(_ user: String, password: String) async throws {
        try await call(.unlock, [.string(user), .string(password)])
    }

    public func write(_ kind: RecordKind, count: Int) async throws {
        try await call(.write, [.string(kind.rawValue), .uint32(UInt32(count))])
    }

    public func snapshot() async throws -> AppSnapshot { AppSnapshot(wire: try await call(.snapshot).first) }
}
