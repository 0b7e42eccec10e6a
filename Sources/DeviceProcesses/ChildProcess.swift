import CSystem
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Why a process of the device could not be started: the command line reports these with
/// exit code 3 (environment failure).
public struct LaunchError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A process started with posix_spawn and ended by its PID: never by name.
public struct ChildProcess: Sendable, Hashable {
    public let pid: pid_t

    public init(pid: pid_t) { self.pid = pid }

    public enum Output: Sendable {
        case inherit
        case null
        /// Appended to the file, created 0600.
        case file(String)
        /// Appended to the file through a pipe, up to `cap` bytes, then dropped and counted
        /// (`LogPump`): for a process whose output nothing bounds.
        case cappedFile(String, cap: Int = LogPump.defaultCap)
        /// A pipe whose read end `spawn` returns.
        case pipe
        /// Stdout only: where stderr goes, through the same descriptor (one log, one cap).
        case sameAsStderr
    }

    public enum ExitStatus: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        public var description: String {
            switch self {
            case .exited(let code): "exit code \(code)"
            case .signaled(let signal): "signal \(signal)"
            }
        }
    }

    /// Starts `executable` (a path, or a name looked up in PATH) with default signal
    /// dispositions and an empty signal mask, whatever the parent ignores. With
    /// `newSession` the child leads a session of its own, so a terminal's Ctrl-C or hang-up
    /// does not reach it. `stdin` is a descriptor to read from (default /dev/null); `descriptor3`
    /// one the child gets as its descriptor 3 (a channel apart from what it prints). Returns the
    /// read end of stdout when it is `.pipe`.
    public static func spawn(
        _ executable: String, _ arguments: [String], stdout: Output = .inherit, stderr: Output = .inherit,
        environment: [String: String]? = nil, newSession: Bool = false, stdin: Int32? = nil,
        descriptor3: Int32? = nil
    ) throws(LaunchError) -> (process: ChildProcess, stdoutPipe: Int32?) {
        guard let path = resolveExecutable(executable) else {
            throw LaunchError("\(executable) not found (PATH=\(ProcessInfo.processInfo.environment["PATH"] ?? ""))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }

        var allSignals = sigset_t(), noSignals = sigset_t()
        sigfillset(&allSignals)
        sigemptyset(&noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(
            &attributes, sdlab_spawn_setsigdef_flag() | (newSession ? sdlab_spawn_setsid_flag() : 0))

        if let stdin {
            posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        var pipeEnds: [Int32] = [-1, -1]
        var capped: [(read: Int32, write: Int32, path: String, cap: Int)] = []
        // Stderr first, so that stdout can then be made the same descriptor.
        for (fd, output) in [(Int32(2), stderr), (Int32(1), stdout)] {
            switch output {
            case .inherit: break
            case .sameAsStderr: posix_spawn_file_actions_adddup2(&actions, 2, fd)
            case .null: posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_WRONLY, 0)
            case .file(let file):
                posix_spawn_file_actions_addopen(
                    &actions, fd, file, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0o600)
            case .pipe:
                guard let ends = closeOnExecPipe() else { throw LaunchError("pipe: \(errorText())") }
                pipeEnds = [ends.read, ends.write]
                posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], fd)
            case .cappedFile(let file, let cap):
                guard let ends = closeOnExecPipe() else { throw LaunchError("pipe: \(errorText())") }
                capped.append((ends.read, ends.write, file, cap))
                posix_spawn_file_actions_adddup2(&actions, ends.write, fd)
            }
        }
        // dup2 onto itself would keep close-on-exec: a descriptor that already is 3 is copied first.
        let source3 = descriptor3 == 3 ? fcntl(3, F_DUPFD_CLOEXEC, 4) : descriptor3
        defer { if descriptor3 == 3, let source3, source3 >= 0 { Glibc.close(source3) } }
        if let source3 { posix_spawn_file_actions_adddup2(&actions, source3, 3) }
        // The child gets stdin, stdout and stderr (and descriptor 3) only: whatever another thread
        // has open without close-on-exec at this moment (a file being read, a pipe just made)
        // stays here.
        let closing = sdlab_spawn_close_from(&actions, descriptor3 == nil ? 3 : 4)
        guard closing == 0 else {
            throw LaunchError("cannot close descriptors for \(path): \(errorText(closing))")
        }

        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let env = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { env.forEach { free($0) } }

        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, env)
        if pipeEnds[1] >= 0 { Glibc.close(pipeEnds[1]) }
        for log in capped { Glibc.close(log.write) }
        guard result == 0 else {
            if pipeEnds[0] >= 0 { Glibc.close(pipeEnds[0]) }
            for log in capped { Glibc.close(log.read) }
            throw LaunchError("cannot start \(path): \(errorText(result))")
        }
        for log in capped { LogPump.shared.copy(from: log.read, to: log.path, cap: log.cap) }
        return (ChildProcess(pid: pid), pipeEnds[0] >= 0 ? pipeEnds[0] : nil)
    }

    /// The executable's path: as given when it contains a slash, else the first match in PATH.
    public static func resolveExecutable(_ name: String) -> String? {
        if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
    }

    public func signal(_ number: Int32) {
        kill(pid, number)
    }

    /// SIGSTOP (to its whole group with `group`), returning once every thread of the process has
    /// stopped (or it has ended). The
    /// kernel stops a process through the one thread that takes the signal, which then stops
    /// the others: until it gets a CPU they run on, and on a busy machine a "stopped" app could
    /// still read what arrives right after kill(). The parent hears when the last thread has
    /// stopped; that is waited for here, without taking the news from anyone. SIGSTOP cannot
    /// be blocked, so this ends once the threads are scheduled. Not our child: not waited for.
    public func suspend(group: Bool = false) {
        if group { signalGroup(SIGSTOP) } else { signal(SIGSTOP) }
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WSTOPPED | WEXITED | WNOWAIT) != 0, errno == EINTR {}
    }

    public var isRunning: Bool { kill(pid, 0) == 0 && !isZombie }

    private var isZombie: Bool { statFields?.first == "Z" }

    /// Stopped by a signal (or traced): it runs no code until continued.
    public var isStopped: Bool { statFields?.first == "T" || statFields?.first == "t" }

    /// The process group it is in; nil once it is gone.
    public var processGroup: pid_t? {
        let group = getpgid(pid)
        return group < 0 ? nil : group
    }

    /// Sends `signal` to its whole process group: the group it leads when it was started with
    /// `newSession`, so a launcher script's children hear it too.
    public func signalGroup(_ signal: Int32) { kill(-pid, signal) }

    /// Waits, at most `timeout`, until the process is stopped (or gone). True once stopped.
    public func waitUntilStopped(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !isStopped {
            guard isRunning, ContinuousClock.now < deadline else { return false }
            var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
            nanosleep(&pause, nil)
        }
        return true
    }

    /// The process's parent, as `/proc` says; nil once it is gone.
    var parentID: Int32? { statFields.flatMap { $0.count > 1 ? Int32($0[1]) : nil } }

    /// The fields of `/proc/PID/stat` after the command (state, parent, …): read past the
    /// command's closing parenthesis, since a command may hold spaces and parentheses.
    private var statFields: [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ")
    }

    /// Waits, at most `timeout` (nil: for as long as it runs), until the process has exited,
    /// child or not. Reaps it when it is our child. True once it is gone.
    @discardableResult
    public func waitForExit(timeout: Duration?) -> Bool {
        let gone = pollExit(timeout: timeout)
        _ = reap()
        return gone
    }

    /// For our own child: waits at most `timeout` and returns how it ended; nil while it runs.
    public func exitStatus(timeout: Duration?) -> ExitStatus? {
        _ = pollExit(timeout: timeout)
        return reap()
    }

    /// pidfd_open polls readable once the process has ended, for any process.
    private func pollExit(timeout: Duration?) -> Bool {
        let pidfd = sdlab_pidfd_open(pid)
        guard pidfd >= 0 else { return !isRunning }
        defer { Glibc.close(pidfd) }
        var entry = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while entry.revents == 0 {
            guard let milliseconds = deadline.map(pollMilliseconds(until:)) ?? -1 else { return false }
            if poll(&entry, 1, milliseconds) < 0, errno != EINTR { break }
        }
        return true
    }

    /// The exit status of our child, when it has ended; nil while it runs or if not ours.
    public func reap() -> ExitStatus? {
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
    }

    /// SIGTERM, then SIGKILL if it is still there after `grace`. With `group` (for a process
    /// started with `newSession`, which leads its process group), SIGKILL then goes to the
    /// whole group, while the ended process is not yet reaped and its number is still ours:
    /// whatever it started and left behind in its group ends with it.
    public func stop(grace: Duration = .seconds(5), group: Bool = false) {
        signal(SIGTERM)
        if !pollExit(timeout: grace) {
            signal(SIGKILL)
            _ = pollExit(timeout: .seconds(5))
        }
        if group { kill(-pid, SIGKILL) }
        _ = reap()
    }
}

/// The poll() timeout left until `deadline`, rounded up; nil once it has passed.
func pollMilliseconds(until deadline: ContinuousClock.Instant) -> Int32? {
    let left = ContinuousClock.now.duration(to: deadline)
    guard left > .zero else { return nil }
    let seconds = min(left.components.seconds, Int64(Int32.max / 1000))
    return Int32(seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
}
