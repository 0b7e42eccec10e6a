import DBusKit
import DeviceContract
import DeviceProcesses
import Foundation
import HubFiles
import Synchronization

/// A started device: its bus and its hub, each recorded by PID in the run folder so that
/// `device down` (another process) can stop them.
public final class RunningDevice: Sendable {
    public let directory: String
    public let bus: BusDaemon
    private let hubProcess: Mutex<ChildProcess>
    private let detached: Bool
    /// The write end of the orphan guard's pipe: it closes when this process ends, however.
    private let guardian: (process: ChildProcess, pipe: Int32)?
    /// A device that is not detached holds its folder's lock for its whole life (`lockFolder`).
    private let folderLock: FileLock?

    /// The hub process (another one after `restartHub`).
    public var hub: ChildProcess { hubProcess.withLock { $0 } }
    /// Where the runner and the apps find the hub: by the unique name it records, so a process
    /// that takes `dev.sdlab.Hub` is never asked.
    public let hubAddress: HubAddress

    public static func hubAddress(in directory: String) -> HubAddress {
        HubAddress(nameFile: RunFolder.hubName(in: directory))
    }

    init(
        directory: String, bus: BusDaemon, hub: ChildProcess, detached: Bool, guardian: (ChildProcess, Int32)?,
        folderLock: FileLock?
    ) {
        self.directory = directory
        hubAddress = Self.hubAddress(in: directory)
        self.bus = bus
        self.hubProcess = Mutex(hub)
        self.detached = detached
        self.guardian = guardian
        self.folderLock = folderLock
    }

    /// Starts the hub again on its saved state (after a crash, or to restart it): the old
    /// process is stopped first if it still runs.
    public func restartHub(sdlab: String = DevicePaths.executablePath()) async throws {
        let old = hub
        if old.isRunning { old.stop(grace: .seconds(2)) }
        let new = try await Self.startHub(sdlab: sdlab, bus: bus, directory: directory, setup: nil, detached: detached)
        hubProcess.withLock { $0 = new }
    }

    /// Starts the bus, then the hub, and returns once the hub answers `GetSession`. On any
    /// failure whatever was started is stopped again and a `LaunchError` says why. `setup`
    /// (default: the default users) applies only when the folder holds no saved state.
    public static func start(
        in directory: String, detached: Bool, setup: HubSetup? = nil,
        sdlab: String = DevicePaths.executablePath()
    ) async throws -> RunningDevice {
        try DevicePaths.prepareDirectory(directory)
        let lock = try lockFolder(directory)
        if !runningProcesses(in: directory).isEmpty {
            throw LaunchError(
                "a device is already running in \(directory): `sdlab device down --dir \(directory)` stops it")
        }
        let bus = try await offPool { () -> Result<BusDaemon, LaunchError> in
            Result { () throws(LaunchError) in try BusDaemon.start(in: directory, detached: detached) }
        }.get()
        record(bus.process, at: RunFolder.busPID(in: directory))
        let guardian = detached ? nil : startGuard(sdlab: sdlab, directory: directory)
        do {
            let hub = try await startHub(sdlab: sdlab, bus: bus, directory: directory, setup: setup, detached: detached)
            if detached { lock.release() } else { lock.write("running \(getpid())") }
            return RunningDevice(
                directory: directory, bus: bus, hub: hub, detached: detached, guardian: guardian,
                folderLock: detached ? nil : lock)
        } catch {
            bus.stop()
            removeRecords(in: directory)
            if let guardian { endGuard(guardian) }
            lock.release()  // only now: a device started next here must not lose its records to this
            throw error
        }
    }

    private static func startHub(
        sdlab: String, bus: BusDaemon, directory: String, setup: HubSetup?,
        detached: Bool
    ) async throws -> ChildProcess {
        let log = RunFolder.hubLog(in: directory)
        try RunFolder.prepare(directory)
        var arguments = [
            "hub", "--bus", bus.address, "--state", RunFolder.hubState(in: directory),
            "--trace", RunFolder.hubTrace(in: directory), "--name-file", RunFolder.hubName(in: directory),
            "--crash-file", RunFolder.hubCrashPoint(in: directory),
        ]
        if let setup {
            do {
                try setup.write(to: RunFolder.hubSetup(in: directory))
            } catch {
                throw LaunchError("cannot write the hub's setup: \(error)")
            }
            arguments += ["--setup", RunFolder.hubSetup(in: directory)]
        }
        let (hub, stdout) = try ChildProcess.spawn(
            sdlab, arguments,
            stdout: .pipe, stderr: .file(log), newSession: detached)
        record(hub, at: RunFolder.hubPID(in: directory))
        let reader = LineReader(fd: stdout!)
        let line = await offPool { reader.readLine(timeout: .seconds(15)) }
        guard line == "ready" else {
            hub.stop(grace: .seconds(2))
            let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw LaunchError("the hub did not start: \(said.isEmpty ? "no answer within 15 s" : said)")
        }
        try await confirmAnswers(bus.address, at: hubAddress(in: directory))
        return hub
    }

    /// One sdlab at a time starts a device in a folder: the check that none runs there and the
    /// start are done under an exclusive lock on `device.lock`, so of two `device up` at the
    /// same moment one starts and the other refuses at once, having started nothing and
    /// removed nothing of the winner's. A detached device's starter lets go once it is up; one
    /// that is not detached holds it for the device's life, since its `stop` removes the PID
    /// records, which must never be those of a device started after it.
    private static func lockFolder(_ directory: String) throws(LaunchError) -> FileLock {
        let path = RunFolder.lock(in: directory)
        guard let lock = try FileLock.take(path) else {
            let holder = FileLock.note(at: path).split(separator: " ")
            if holder.first == "running", let pid = holder.last {
                throw LaunchError(
                    "a device is already running in \(directory), in the foreground of sdlab (PID \(pid)), "
                        + "which stops it when it ends")
            }
            throw LaunchError("another sdlab is starting a device in \(directory)")
        }
        lock.write("starting \(getpid())")
        return lock
    }

    /// One real call through the bus, so "up" means "answers".
    private static func confirmAnswers(_ address: String, at hub: HubAddress) async throws {
        let connection = try await Connection.connect(to: address)
        do {
            try await connection.callHub(HubMethod.getSession, at: hub, timeout: .seconds(5))
            await connection.close()
        } catch {
            await connection.close()
            throw LaunchError("the hub does not answer: \(error)")
        }
    }

    /// Returns why the device ended: a termination signal to this process, or the hub or the
    /// bus exiting by itself.
    public func waitForEnd() async -> String {
        await firstOf([
            { "signal \(await TerminationSignals.next())" },
            { [hub] in
                _ = await offPool { hub.waitForExit(timeout: nil) }
                return "the hub exited"
            },
            { [bus] in
                _ = await offPool { bus.process.waitForExit(timeout: nil) }
                return "the bus exited"
            },
        ])
    }

    /// Stops the hub, then the bus.
    public func stop() {
        hub.stop()
        bus.stop()
        Self.stopWhatHooksLeft(in: directory)
        Self.removeRecords(in: directory)
        if let guardian { Self.endGuard(guardian) }
        folderLock?.release()
    }

    /// Whatever a cleanup hook started and that left the hook's process group on purpose
    /// (`setsid`): found by the container the hook's environment names, since it is in no
    /// group of ours. (One that also cleared its environment would escape this.)
    private static func stopWhatHooksLeft(in directory: String) {
        for pid in LiveProcesses.startedByHooks(in: directory) where pid != getpid() { kill(pid, SIGKILL) }
    }

    /// `sdlab guard` ends every process of the device once this process is gone, even by
    /// SIGKILL (`DeviceGuard` says how): it reads a pipe whose only write end is ours
    /// (close-on-exec, so no other child holds it). Nil if it cannot start: the device still runs.
    private static func startGuard(sdlab: String, directory: String) -> (ChildProcess, Int32)? {
        guard let pipe = closeOnExecPipe() else { return nil }
        let ends = [pipe.read, pipe.write]
        defer { close(ends[0]) }
        let arguments = ["guard", "--owner", "\(getpid())", "--folder", directory]
        guard
            let (process, _) = try? ChildProcess.spawn(
                sdlab, arguments, stdout: .null, stderr: .null,
                newSession: true, stdin: ends[0])
        else {
            close(ends[1])
            return nil
        }
        return (process, ends[1])
    }

    /// A byte before the end of the pipe tells the guard the device was stopped on purpose, by
    /// us: nothing is left for it to end.
    private static func endGuard(_ guardian: (process: ChildProcess, pipe: Int32)) {
        var stoppedOnPurpose: UInt8 = 1
        _ = write(guardian.pipe, &stoppedOnPurpose, 1)
        close(guardian.pipe)
        guardian.process.waitForExit(timeout: .seconds(5))
    }

    /// Stops what a run folder records, hub first; returns what was running.
    public static func stopRecorded(in directory: String) -> [String] {
        let running = runningProcesses(in: directory)
        for (_, process) in running { process.stop() }
        stopWhatHooksLeft(in: directory)
        removeRecords(in: directory)
        return running.map(\.name)
    }

    // MARK: - PID records

    private static func record(_ process: ChildProcess, at path: String) {
        _ = FileManager.default.createFile(
            atPath: path, contents: Data("\(process.pid)\n".utf8),
            attributes: [.posixPermissions: 0o600])
    }

    private static func removeRecords(in directory: String) {
        for path in [
            RunFolder.hubPID(in: directory), RunFolder.busPID(in: directory), RunFolder.hubName(in: directory),
            RunFolder.busSocket(in: directory),
        ] {
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    /// The recorded processes still running, hub first. A PID counts only while its command
    /// line names this folder: a stale record never stops an unrelated process.
    private static func runningProcesses(in directory: String) -> [(name: String, process: ChildProcess)] {
        [("the hub", RunFolder.hubPID(in: directory)), ("the bus", RunFolder.busPID(in: directory))].compactMap {
            name, record in
            guard let text = try? String(contentsOfFile: record, encoding: .utf8),
                let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)),
                let commandLine = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")),
                String(decoding: commandLine, as: UTF8.self).contains(RunFolder.busSocket(in: directory))
            else { return nil }
            return (name, ChildProcess(pid: pid))
        }
    }
}
