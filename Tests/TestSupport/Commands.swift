import DeviceProcesses
import Foundation

/// What a finished tool printed. `status` is its exit code, or 128 + the signal that ended it.
public struct CommandOutput: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
}

/// Runs a tool to its end with stdin from /dev/null. After `timeout` it is stopped by its PID
/// and `TimedOut` is thrown. Started through `ChildProcess`, so it gets default signal
/// handling whatever thread of the test runtime starts it.
public func run(
    _ tool: String, _ arguments: [String], environment: [String: String]? = nil,
    timeout: Duration = .seconds(90)
) async throws -> CommandOutput {
    let directory = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-cmd")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let (out, err) = (directory + "/stdout", directory + "/stderr")
    let (process, _) = try ChildProcess.spawn(
        tool, arguments, stdout: .file(out), stderr: .file(err),
        environment: environment)
    guard let status = await offPool({ process.exitStatus(timeout: timeout) }) else {
        process.stop(grace: .seconds(1))
        throw TimedOut(what: "\(tool) \(arguments.joined(separator: " "))")
    }
    let code: Int32 =
        switch status {
        case .exited(let code): code
        case .signaled(let signal): 128 + signal
        }
    return CommandOutput(
        status: code, stdout: (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
        stderr: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
}

/// A long-running tool (dbus-monitor, `sdlab notify wait`) whose stdout, or stderr, is read
/// line by line while it runs; stopped by its PID.
public final class LineProducer: @unchecked Sendable {
    public let process: ChildProcess
    private let reader: LineReader
    /// Every line read so far, for failure messages. Only touched by one reader at a time.
    public private(set) var lines: [String] = []

    /// Reads stdout (stderr goes to `log`), or with `readingStderr` reads stderr (stdout goes
    /// to `log`).
    public init(
        _ tool: String, _ arguments: [String], environment: [String: String]? = nil,
        log: String = "/dev/null", readingStderr: Bool = false
    ) throws {
        let (process, pipe) = try ChildProcess.spawn(
            tool, arguments, stdout: readingStderr ? .file(log) : .pipe, stderr: readingStderr ? .pipe : .file(log),
            environment: environment)
        self.process = process
        reader = LineReader(fd: pipe!)
    }

    /// Reads lines until one contains `text`; throws `TimedOut` after `limit` or at end of output.
    @discardableResult
    public func waitForLine(containing text: String, within limit: Duration = .seconds(60)) async throws -> String {
        let deadline = ContinuousClock.now + limit
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { break }
            guard let line = await offPool({ self.reader.readLine(timeout: left) }) else { break }
            lines.append(line)
            if line.contains(text) { return line }
        }
        throw TimedOut(what: "a line containing \"\(text)\"; got:\n" + lines.joined(separator: "\n"))
    }

    /// How it ended, waiting at most `limit`; nil if it still runs.
    public func exitStatus(within limit: Duration = .seconds(10)) async -> ChildProcess.ExitStatus? {
        await offPool { [process] in process.exitStatus(timeout: limit) }
    }

    public func stop() { process.stop(grace: .seconds(2)) }
}

/// The `sdlab` built next to the running test bundle.
public let sdlabPath: String = {
    URL(fileURLWithPath: DevicePaths.executablePath()).deletingLastPathComponent().appendingPathComponent("sdlab").path
}()

/// This process's environment with some variables replaced.
public func environment(with changes: [String: String]) -> [String: String] {
    ProcessInfo.processInfo.environment.merging(changes) { $1 }
}
