import DBusKit
import DeviceContract
import DeviceProcesses
import Foundation
import SharedDevice

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

    /// The descriptor the app says ready on (`--ready-fd`).
    static let readyDescriptor: Int32 = 3

    /// Starts the app in its container's environment (`AppContainer`) and returns once it says
    /// `ready` (its launch check done) and the process that owns its bus name is the one launched
    /// or in its process group. On failure the process is stopped and the error carries what it
    /// said.
    public static func launch(
        _ spec: AppSpec, bus: String, in directory: String, connection: Connection,
        sdlab: String = DevicePaths.executablePath(),
        timeout: Duration = .seconds(15)
    ) async throws(LaunchError) -> LaunchedApp {
        try RunFolder.prepare(directory)
        let log = RunFolder.log(of: spec.name, in: directory)
        let executable: String
        if let own = spec.executable {
            executable = try AppBundle.executable(of: own, for: spec, in: directory)
        } else {
            executable = try appExecutable(beside: sdlab)
        }
        let container = RunFolder.container(of: spec.name, in: directory)
        let trace = RunFolder.trace(of: spec.name, in: directory)
        let fenced = try AppFence.command(
            executable, spec.arguments(bus: bus, directory: directory), container: container,
            trace: trace, beside: sdlab)
        let ready = try channel(for: spec.name)
        let spawned = TraceLog.now()
        let process: ChildProcess
        do throws(LaunchError) {
            // What the app prints, on stdout or stderr, goes to its log under one cap; it says
            // ready on a pipe of its own, so that nothing it prints can end it or be taken for
            // its ready line. The fence (`AppFence`) becomes the app: the same process.
            (process, _) = try ChildProcess.spawn(
                fenced.executable, fenced.arguments, stdout: .sameAsStderr, stderr: .cappedFile(log),
                environment: AppContainer(root: container).launchEnvironment(),
                newSession: true, descriptor3: ready.write)
        } catch {
            close(ready.read)
            close(ready.write)
            throw error
        }
        close(ready.write)
        let refusals = FenceRefusals(
            app: spec.name, launched: process.pid,
            trace: RunFolder.fenceTrace(of: spec.name, pid: process.pid, in: directory))
        AppFence.kernelRefusals?.register(process.pid, since: spawned, refusals: refusals)
        try await watch(
            process, of: spec.name, channel: ready.read, container: container, trace: trace, refusals: refusals)
        let reader = LineReader(fd: ready.read)
        let line = await offPool { reader.readLine(timeout: timeout) }
        guard line == "ready" else {
            // No line: the pipe closed because the process ended (or closed it), or the time ran out.
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
                spec: spec, process: process, container: container, busName: busName, answering: answering)
        } catch {
            process.stop(grace: .seconds(2), group: true)
            throw error
        }
    }

    /// The app's channel to the runner, its descriptor 3: the fence sends the watch's listener on
    /// it, then the app says ready. Messages keep their bounds, so neither is read into the other.
    private static func channel(for name: String) throws(LaunchError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw LaunchError("launch \(name): socketpair: \(errorText())")
        }
        return (ends[0], ends[1])
    }

    /// Serves the fence's watch of the launched process. Without it (the fence could not install
    /// it) the launch fails unless `SDLAB_FENCE_WATCH=off` asked for that, since writes the kernel
    /// refused would then go unnamed; so does a launch the fence stopped (`FenceWatch.receive`).
    private static func watch(
        _ process: ChildProcess, of name: String, channel: Int32, container: String, trace: String,
        refusals: FenceRefusals
    ) async throws(LaunchError) {
        switch await offPool({ FenceWatch.receive(on: channel, of: name, timeout: .seconds(15)) }) {
        case .success(let listener?):
            FenceWatch.serve(listener, container: container, files: AppFence.files(trace: trace), refusals: refusals)
        case .success(nil):
            break
        case .failure(let error):
            close(channel)
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
    public static func appExecutable(beside sdlab: String) throws(LaunchError) -> String {
        try builtExecutable("sdlab-app", beside: sdlab, what: "app executable")
    }

    /// The program `name`, which the package builds beside sdlab; `what` names it when it is missing.
    static func builtExecutable(_ name: String, beside sdlab: String, what: String) throws(LaunchError) -> String {
        let folder = sdlab.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let path = (folder.isEmpty ? "." : folder) + "/" + name
        guard access(path, X_OK) == 0 else {
            throw LaunchError("no \(what) at \(path): build the whole package (`swift build`), not sdlab alone")
        }
        return path
    }
}
