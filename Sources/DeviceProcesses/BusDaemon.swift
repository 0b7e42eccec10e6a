import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The device's notification center: a real `dbus-daemon` listening on a socket inside a run
/// folder, started from `Bus/device.conf`, stopped by its PID.
public struct BusDaemon: Sendable {
    public let process: ChildProcess
    /// The address clients connect to (`unix:path=…,guid=…`).
    public let address: String

    /// Starts the daemon and waits until it listens (it prints its address once the socket
    /// is bound). A missing executable, a bad config or no answer within `timeout` throws a
    /// `LaunchError` that quotes the daemon's own message; nothing is left running then.
    public static func start(
        in directory: String, config: String? = nil, detached: Bool = false, timeout: Duration = .seconds(10)
    ) throws(LaunchError) -> BusDaemon {
        let executable = ProcessInfo.processInfo.environment["SDLAB_DBUS_DAEMON"] ?? "dbus-daemon"
        guard ChildProcess.resolveExecutable(executable) != nil else {
            throw LaunchError("\(executable) not found: install it with `apt-get install dbus-daemon`")
        }
        let configFile: String
        if let config { configFile = config } else { configFile = try DevicePaths.busConfig() }
        guard FileManager.default.isReadableFile(atPath: configFile) else {
            throw LaunchError("cannot read the bus config \(configFile)")
        }
        let log = RunFolder.busLog(in: directory)
        let (process, stdout) = try ChildProcess.spawn(
            executable,
            [
                "--config-file=\(configFile)",
                "--address=unix:path=\(Self.escapedAddressValue(RunFolder.busSocket(in: directory)))",
                "--nofork", "--nopidfile", "--print-address=1",
            ],
            stdout: .pipe, stderr: .file(log), newSession: detached)
        let reader = LineReader(fd: stdout!)
        guard let address = reader.readLine(timeout: timeout), address.hasPrefix("unix:") else {
            process.stop(grace: .seconds(1))
            let said =
                (try? String(contentsOfFile: log, encoding: .utf8)).map {
                    String($0.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
                } ?? ""
            throw LaunchError(
                "dbus-daemon did not start with \(configFile)"
                    + (said.isEmpty ? " within \(timeout)" : ": \(said)"))
        }
        return BusDaemon(process: process, address: address)
    }

    public func stop() {
        process.stop(grace: .seconds(5))
    }

    /// A value in a D-Bus address, escaped as the specification says: bytes other than
    /// `-0-9A-Za-z_/.\\*` become `%XX`, so a folder with spaces or commas works.
    static func escapedAddressValue(_ value: String) -> String {
        value.utf8.map { byte in
            let plain =
                Array("-_/.\\*".utf8).contains(byte) || (0x30...0x39).contains(byte)
                || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            let hex = String(byte, radix: 16, uppercase: true)
            return plain ? String(UnicodeScalar(byte)) : "%" + (byte < 16 ? "0" : "") + hex
        }.joined()
    }
}

extension BusDaemon {
    /// Runs `body` with a daemon of its own in a new temporary folder; stops the daemon and
    /// removes the folder afterwards, whatever `body` does.
    public static func withTemporary<T>(
        prefix: String = "sdlab-bus", _ body: (BusDaemon, String) async throws -> T
    ) async throws -> T {
        let directory = try DevicePaths.makeTemporaryDirectory(prefix: prefix)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let daemon = try start(in: directory)
        defer { daemon.stop() }
        return try await body(daemon, directory)
    }
}
