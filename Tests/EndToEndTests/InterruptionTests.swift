import DeviceProcesses
import Foundation
import TestSupport
import Testing

/// Ctrl-C (SIGINT) or SIGTERM while `run`, `fuzz` or `bench` works: the work under way neither
/// passes nor fails, the command says how far it got and exits 128 + the signal, and nothing it
/// started is left running.
@Suite(.tags(.device), .devicesWanted, .serialized, .timeLimit(.minutes(5)))
struct InterruptionTests {
    static let longWait = RunCommandTests.scenarios + "/long-wait.yaml"

    @Test func aRunInterruptedBySIGINTCountsNoScenarioAndExits130() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-sigint")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // With one job each step is printed as it ends: the next one is the 60 s wait.
        let ended = try await InterruptedCommand.run(
            ["run", "--jobs", "1", Self.longWait], in: folder, once: "✓ background: notes", signals: [SIGINT])
        #expect(ended.status == .exited(130), "\(ended)")
        #expect(ended.stderr.contains("sdlab: interrupted by SIGINT after 0 of 1 scenarios"), "\(ended)")
        #expect(ended.stdout.contains("0 passed, 0 failed, 1 not run to their end"), "\(ended)")
        #expect(!ended.stdout.contains("✗") && !ended.stdout.contains("scenarios passed"), "\(ended)")
        ended.expectNoFailureOfItsOwn()
        #expect(LiveProcesses.mentioning(folder).isEmpty, "\(LiveProcesses.mentioning(folder))")
    }

    /// A second signal while the first is being handled changes nothing; no report is written.
    @Test func aRunInterruptedBySIGTERMWritesNoReportAndExits143() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-sigterm")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (report, junit) = (folder + "/report", folder + "/junit.xml")
        let ended = try await InterruptedCommand.run(
            ["run", "--jobs", "1", Self.longWait, "--report", report, "--junit", junit], in: folder,
            once: "✓ background: notes", signals: [SIGTERM, SIGINT])
        #expect(ended.status == .exited(143), "\(ended)")
        #expect(ended.stderr.contains("sdlab: interrupted by SIGTERM after 0 of 1 scenarios"), "\(ended)")
        #expect(ended.stdout.contains("nothing written for --report, --junit"), "\(ended)")
        #expect(!FileManager.default.fileExists(atPath: report) && !FileManager.default.fileExists(atPath: junit))
        ended.expectNoFailureOfItsOwn()
        #expect(LiveProcesses.mentioning(folder).isEmpty, "\(LiveProcesses.mentioning(folder))")
    }

    /// The signal comes during the second sequence: the first counts, the second is neither
    /// passed, failed nor shrunk. Each sequence is long (a few seconds), so that the signal,
    /// sent as soon as the first one's line is read, lands in the second however busy the
    /// machine is.
    @Test func aFuzzInterruptedBySIGTERMCountsTheSequencesDoneAndExits143() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-fuzz-sigterm")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let ended = try await InterruptedCommand.run(
            ["fuzz", "--sequences", "3", "--actions", "300", "--seed", "0x5d1ab", "--out", folder], in: folder,
            once: "[1/3] seed", signals: [SIGTERM])
        #expect(ended.stdout.contains("[1/3] seed 0x000000000005d1ab: ✓"), "the first sequence holds: \(ended)")
        #expect(ended.status == .exited(143), "\(ended)")
        #expect(ended.stderr.contains("sdlab: interrupted by SIGTERM after 1 of 3 sequences"), "\(ended)")
        #expect(!ended.stdout.contains("[2/3]") && !ended.stdout.contains("every invariant held"), "\(ended)")
        #expect(!ended.stdout.contains("shrunk") && !ended.stdout.contains("reproduce"), "\(ended)")
        ended.expectNoFailureOfItsOwn()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty, "no scenario, no run folder")
        #expect(LiveProcesses.mentioning(folder).isEmpty, "\(LiveProcesses.mentioning(folder))")
    }

    /// The signal comes during the second fleet: the first is counted, and neither the table
    /// nor the files are written.
    @Test func aBenchInterruptedBySIGINTWritesNoResultsAndExits130() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-bench-sigint")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (json, plot) = (folder + "/bench.json", folder + "/bench.svg")
        let ended = try await InterruptedCommand.run(
            [
                "bench", "--apps", "1,1", "--signals", "20", "--gap", "5ms", "--changes", "1", "--records", "5",
                "--json", json, "--plot", plot, "--folder", folder,
            ], in: folder, once: "1 apps: delivery p50", signals: [SIGINT])
        #expect(ended.status == .exited(130), "\(ended)")
        #expect(ended.stderr.contains("sdlab: interrupted by SIGINT after 1 of 2 fleets"), "\(ended)")
        #expect(!ended.stdout.contains("median (min–max)"), "no table: \(ended)")
        #expect(!FileManager.default.fileExists(atPath: json) && !FileManager.default.fileExists(atPath: plot))
        ended.expectNoFailureOfItsOwn()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty, "no run folder left")
        #expect(LiveProcesses.mentioning(folder).isEmpty, "\(LiveProcesses.mentioning(folder))")
    }
}

/// An sdlab command, its TMPDIR a test's folder, sent termination signals once a line on its
/// stdout shows it at work: how it ended and everything it printed.
struct InterruptedCommand: CustomStringConvertible {
    var status: ChildProcess.ExitStatus
    var stdout: String
    var stderr: String

    var description: String { "\(status)\nstdout:\n\(stdout)\nstderr:\n\(stderr)" }

    /// What only a cancellation mistaken for a failure would print.
    func expectNoFailureOfItsOwn() {
        let printed = stdout + stderr
        #expect(!printed.contains("CancellationError") && !printed.contains("could not run"), "\(self)")
    }

    static func run(
        _ arguments: [String], in folder: String, once text: String, signals: [Int32],
        within limit: Duration = .seconds(120)
    ) async throws -> InterruptedCommand {
        let logs = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-interrupt-log")
        defer { try? FileManager.default.removeItem(atPath: logs) }
        let (process, pipe) = try ChildProcess.spawn(
            sdlabPath, arguments, stdout: .pipe, stderr: .file(logs + "/stderr"),
            environment: environment(with: ["TMPDIR": folder]))
        guard let pipe else {
            process.stop(grace: .seconds(2))
            throw TimedOut(what: "a pipe from sdlab's stdout")
        }
        let reader = LineReader(fd: pipe)
        var lines: [String] = []
        do {
            try await read(reader, into: &lines, until: text, within: limit)
        } catch {
            process.stop(grace: .seconds(2))
            throw error
        }
        for signal in signals { process.signal(signal) }
        guard let status = await offPool({ process.exitStatus(timeout: .seconds(60)) }) else {
            process.stop(grace: .seconds(2))
            throw TimedOut(what: "sdlab \(arguments[0]) to end after the signal")
        }
        // Ended: what it printed last is in the pipe, then the end of it.
        while let line = await offPool({ reader.readLine(timeout: .seconds(5)) }) { lines.append(line) }
        return InterruptedCommand(
            status: status, stdout: lines.joined(separator: "\n"),
            stderr: (try? String(contentsOfFile: logs + "/stderr", encoding: .utf8)) ?? "")
    }

    /// Reads lines until one contains `text`; throws `TimedOut` after `limit` or at the end of the output.
    private static func read(
        _ reader: LineReader, into lines: inout [String], until text: String, within limit: Duration
    ) async throws {
        let deadline = ContinuousClock.now + limit
        while case let left = ContinuousClock.now.duration(to: deadline), left > .zero,
            let line = await offPool({ reader.readLine(timeout: left) })
        {
            lines.append(line)
            if line.contains(text) { return }
        }
        throw TimedOut(what: "a line containing \"\(text)\"; got:\n" + lines.joined(separator: "\n"))
    }
}
