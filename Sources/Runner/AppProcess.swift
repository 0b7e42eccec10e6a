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
    /// The built-in app begins a background task as it enters the background.
    public var backgroundTask: Bool
    public var cleanup: CleanupPolicy
    /// An app a team built on SharedDeviceSDK, run instead of `sdlab app`.
    public var executable: String?
    /// The folder a cleanup hook runs in: the scenario file's, so its relative paths are the file's.
    public var hookDirectory: String?
    /// The app's `--traced-posts-per-second` (nil: its default); the bench traces every post.
    public var tracedPostsPerSecond: Int?

    public init(
        name: String, sdk: SDKKind, backgroundMode: Bool = false, backgroundTask: Bool = false,
        cleanup: CleanupPolicy = .wipeAll, executable: String? = nil, hookDirectory: String? = nil,
        tracedPostsPerSecond: Int? = nil
    ) {
        self.tracedPostsPerSecond = tracedPostsPerSecond
        self.name = name
        self.sdk = sdk
        self.backgroundMode = backgroundMode
        self.backgroundTask = backgroundTask
        self.cleanup = cleanup
        self.executable = executable
        self.hookDirectory = hookDirectory
    }

    /// The app's command line (`AppOptions`, as the app declares it) in a run folder.
    func arguments(bus: String, directory: String) -> [String] {
        AppOptions.commandLine(
            name: name, sdk: sdk, backgroundMode: backgroundMode, backgroundTask: backgroundTask, cleanup: cleanup,
            hookDirectory: hookDirectory, container: RunFolder.container(of: name, in: directory),
            trace: RunFolder.trace(of: name, in: directory), bus: bus,
            hubNameFile: RunningDevice.hubNameFile(in: directory), tracedPostsPerSecond: tracedPostsPerSecond)
    }
}

/// An app process the runner started. Lifecycle signals go to its process group, which it
/// leads, so that an `executable:` that is a launcher script hears them with the app it
/// started; calls go to the bus name of the process that answered when it was launched, so
/// that another process taking the app's name later is never asked in its place.
public struct LaunchedApp: Sendable {
    public let spec: AppSpec
    public let process: ChildProcess
    /// Its container folder.
    public let container: String
    /// The unique bus name of the process that serves the app's `dev.sdlab.App1`.
    public let busName: String
    /// That process: the launched one, or one in its process group (a launcher's child).
    public let answering: ChildProcess

    /// Starts the app and returns once it says `ready` (its launch check done) and the process
    /// that owns its bus name is the one launched or in its process group. On failure the
    /// process is stopped and the error carries what it said.
    public static func launch(
        _ spec: AppSpec, bus: String, in directory: String, connection: Connection,
        sdlab: String = DevicePaths.executablePath(),
        timeout: Duration = .seconds(15)
    ) async throws(LaunchError) -> LaunchedApp {
        try RunFolder.prepare(directory)
        let log = RunFolder.log(of: spec.name, in: directory)
        let arguments = spec.arguments(bus: bus, directory: directory)
        let executable: String
        if let own = spec.executable { executable = own } else { executable = try appExecutable(beside: sdlab) }
        let (process, stdout) = try ChildProcess.spawn(
            executable, arguments, stdout: .pipe, stderr: .cappedFile(log), newSession: true)
        let reader = LineReader(fd: stdout!)
        let line = await offPool { reader.readLine(timeout: timeout) }
        guard line == "ready" else {
            // No line: the pipe closed because the process ended, or the time ran out.
            // Reaped when it ended: its PID is then no longer ours to signal.
            let ended = process.exitStatus(timeout: .milliseconds(200))
            if ended == nil { process.stop(grace: .seconds(2), group: true) }
            _ = LogPump.shared.waitUntilDrained(log, timeout: .seconds(1))
            let said = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").trimmingCharacters(
                in: .whitespacesAndNewlines)
            let why = ended.map { "it ended (\($0)) before it was ready" } ?? "not ready within \(timeout)"
            throw LaunchError("the app \(spec.name) did not start: \(why)\(said.isEmpty ? "" : "; it said: \(said)")")
        }
        do {
            let (busName, answering) = try await answeringProcess(of: spec.name, launched: process, on: connection)
            return LaunchedApp(
                spec: spec, process: process, container: RunFolder.container(of: spec.name, in: directory),
                busName: busName, answering: answering)
        } catch {
            process.stop(grace: .seconds(2), group: true)
            throw error
        }
    }

    /// Who owns the app's bus name, as the bus itself says (its unique name and the PID behind
    /// it): refused unless it is `launched` or in its process group.
    private static func answeringProcess(
        of name: String, launched: ChildProcess, on connection: Connection
    ) async throws(LaunchError) -> (String, ChildProcess) {
        let wellKnown = AppBus.name(of: name)
        let owner: String?
        let pid: UInt32?
        do {
            owner = try await connection.nameOwner(wellKnown)
            if let owner { pid = try await connection.processID(of: owner) } else { pid = nil }
        } catch {
            throw LaunchError("launch \(name): cannot ask the bus who owns \(wellKnown): \(error)")
        }
        guard let owner, let pid else {
            throw LaunchError(
                "launch \(name): it said ready but does not own \(wellKnown) on the bus, so nothing can reach it"
                    + " (an app takes its bus name before it prints ready)")
        }
        let answering = ChildProcess(pid: pid_t(pid))
        guard answering == launched || answering.processGroup == launched.pid else {
            throw LaunchError(
                "launch \(name): \(wellKnown) is owned by PID \(pid), which is neither the process launched (PID"
                    + " \(launched.pid)) nor in its process group: the runner could not suspend or stop what answers")
        }
        return (owner, answering)
    }

    /// SIGSTOP to the app's process group: the app really stops and hears nothing until
    /// resumed. Returns once the process that answers has stopped, so nothing sent afterwards
    /// reaches it; throws if it does not (it left the group).
    public func suspend() throws(LaunchError) {
        process.suspend(group: true)
        guard answering == process || answering.waitUntilStopped(timeout: .seconds(2)) else {
            throw LaunchError(
                "suspend \(spec.name): PID \(answering.pid), which answers for it, did not stop (it left the process"
                    + " group of PID \(process.pid), which the runner stops)")
        }
    }

    /// SIGCONT to the app's process group.
    public func resume() { process.signalGroup(SIGCONT) }

    /// SIGKILL to the app's process group, then reaped; a cleanup hook it was running, and
    /// anything else it started in its process group, dies with it, as work does on a phone.
    /// A suspended app is killed as it is, without being continued: it runs no code.
    public func crash() {
        process.signalGroup(SIGKILL)
        process.stop(grace: .seconds(5), group: true)
        HookRecord.stopLeftover(in: container)
    }

    /// A graceful exit: SIGCONT and SIGTERM to the app's process group; once the process that
    /// answers and the launched one have ended, or after `grace`, SIGKILL to whatever is left
    /// in the group (a launcher script's children).
    public func terminate(grace: Duration = .seconds(10)) {
        process.signalGroup(SIGCONT)
        process.signalGroup(SIGTERM)
        if answering != process { answering.waitForExit(timeout: grace) }
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

/// Calls to one app's `dev.sdlab.App1`, sent to the bus name of the process launched for it.
public struct AppClient: Sendable {
    public let connection: Connection
    public let name: String
    /// Where calls go: the unique bus name of the process that answered at launch.
    public let destination: String
    public var timeout: Duration

    public init(_ connection: Connection, app: LaunchedApp, timeout: Duration = .seconds(30)) {
        self.connection = connection
        self.name = app.spec.name
        self.destination = app.busName
        self.timeout = timeout
    }

    /// The app's process has left the bus (it ended, or was killed): whoever holds its name now
    /// is not asked.
    public struct AppGone: Error, CustomStringConvertible {
        public let description: String
    }

    @discardableResult
    public func call(_ method: AppBus.Method, _ arguments: [DBusValue] = []) async throws -> [DBusValue] {
        do {
            return try await connection.call(
                destination: destination, path: AppBus.path, interface: AppBus.interface,
                member: method.rawValue, arguments, timeout: timeout)
        } catch let error as DBusError where error.meansNoSuchName {
            throw AppGone(
                description: "\(name) is gone: the process launched for it (bus name \(destination)) has left the bus")
        }
    }

    public func foreground() async throws { try await call(.foreground) }
    public func background() async throws { try await call(.background) }
    /// Told it was continued at `continuedAt` (CLOCK_MONOTONIC ns).
    public func resumed(continuedAt: UInt64) async throws { try await call(.resumed, [.uint64(continuedAt)]) }

    /// The app's background time is up: its tasks' expiration handlers run. An app built
    /// before this call existed answers UnknownMethod: it is suspended all the same.
    public func expireBackgroundTasks() async throws {
        do {
            try await call(.expireBackgroundTasks)
        } catch let error as DBusError where error.name == DBusError.prefix + "UnknownMethod" {
            return
        }
    }
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

extension DBusError {
    /// The bus has nobody under the name a call was sent to.
    var meansNoSuchName: Bool {
        name == DBusError.prefix + "ServiceUnknown" || name == DBusError.prefix + "NameHasNoOwner"
    }
}
