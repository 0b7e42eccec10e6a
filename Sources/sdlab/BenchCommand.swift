import ArgumentParser
import Bench
import DeviceProcesses
import Foundation
import ManagedApp

struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Time broadcasts to fleets of apps, against the plain-C D-Bus baseline in the same run.",
        discussion: """
            For each fleet size N a device of its own gets N background-mode MSAL apps (wipe-all). \
            The bench times the launch (spawn → every app ready), posts --signals account-change \
            notifications --gap apart and times each delivery (post → the app's SDK saw it) and, \
            per post, the slowest app; then checks the device in --changes times while every app \
            holds --records records, and times each app's exposure (the hub's commit → its cleanup \
            done). It counts lost deliveries and reads each app's PSS. With --baseline, the C \
            baseline (one emitter, N receivers) runs right before each fleet and the table shows \
            sdlab's p50 over C's. Latencies are in ms. The devices live in /dev/shm unless --folder \
            says otherwise: this machine's disk would add its own costs to every cleanup. Build with `swift build -c release` first: \
            a debug build is several times slower.
            """
    )

    @Option(help: ArgumentHelp("Fleet sizes, comma-separated.", valueName: "n,n,…"))
    var apps = "1,10,100"

    @Option(help: "Measured posts per fleet size.")
    var signals = 100

    @Option(help: "Time between posts (e.g. 5ms).")
    var gap: Duration = .milliseconds(5)

    @Option(help: "Check-ins timed for exposure per fleet size.")
    var changes = 10

    @Option(help: "Records each app holds before each check-in.")
    var records = 100

    @Option(
        help: ArgumentHelp(
            "The C baseline's folder (shared/bench/dbus-baseline): built and run interleaved.",
            valueName: "dir"))
    var baseline: String?

    @Option(
        help: ArgumentHelp(
            "Write the results as JSON to this file: {\"runs\": [one object per fleet size]}.", valueName: "file"))
    var json: String?

    @Option(
        help: ArgumentHelp("Draw latency against fleet size, sdlab and C, as SVG into this file.", valueName: "file"))
    var plot: String?

    @Option(
        help: ArgumentHelp(
            "Where the fleets' run folders go (default: /dev/shm when it exists, else $TMPDIR).",
            valueName: "dir"))
    var folder: String?

    @Flag(help: "Keep each fleet's run folder (traces, containers, logs).")
    var keep = false

    func validate() throws {
        guard let sizes = fleetSizes, !sizes.isEmpty, sizes.allSatisfy({ (1...2000).contains($0) }) else {
            throw ValidationError("--apps takes fleet sizes from 1 to 2000, comma-separated, such as 1,10,100")
        }
        guard (1...100_000).contains(signals) else { throw ValidationError("--signals is 1 to 100000") }
        guard gap >= .microseconds(100), gap <= .seconds(10) else { throw ValidationError("--gap is 100us to 10s") }
        guard (0...1000).contains(changes) else { throw ValidationError("--changes is 0 to 1000") }
        guard (1...10_000).contains(records) else { throw ValidationError("--records is 1 to 10000") }
    }

    private var fleetSizes: [Int]? {
        let sizes = apps.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        return sizes.contains(nil) ? nil : sizes.compactMap { $0 }
    }

    func run() async throws {
        TerminationSignals.install()
        if DevicePaths.executablePath().contains("/debug/") {
            note(
                "note: this is a debug build; `swift build -c release` and .build/release/sdlab give representative figures"
            )
        }
        let results = try await cancellingOnTermination(Task { try await sweep() })
        emitLine("")
        emitLine(results.table)
        do {
            if let json { try (results.json() + Data("\n".utf8)).write(to: URL(fileURLWithPath: json)) }
            if let plot { try BenchPlot.svg(results).write(toFile: plot, atomically: true, encoding: .utf8) }
        } catch {
            throw failure("cannot write the results: \(error)", code: ExitCodes.environment)
        }
    }

    /// In memory by default: a phone's storage is flash, and this machine's disk makes every
    /// freed block a synchronous discard, which would be timed as cleanup.
    private var runFoldersBase: String {
        if let folder { return folder }
        var isFolder: ObjCBool = false
        let memory = "/dev/shm"
        return FileManager.default.fileExists(atPath: memory, isDirectory: &isFolder) && isFolder.boolValue
            && access(memory, W_OK) == 0 ? memory : DevicePaths.temporaryBase
    }

    private func sweep() async throws -> BenchResults {
        let c = try await preparedBaseline()
        defer { if let c { try? FileManager.default.removeItem(atPath: c.buildFolder) } }
        var runs: [BenchRun] = []
        for size in fleetSizes ?? [] {
            try Task.checkCancellation()
            var floor: CBaseline.Fanout?
            if let c {
                progress("N=\(size): C baseline")
                floor = try await environment { try await c.fanout(receivers: size, signals: signals, gap: gap) }
            }
            let runFolder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-bench", in: runFoldersBase)
            var bench = FleetBench(apps: size, signals: signals, gap: gap, changes: changes, records: records)
            bench.progress = { progress("N=\(size): \($0)") }
            let measured: FleetMeasurement
            do {
                measured = try await bench.run(in: runFolder)
            } catch {
                note("N=\(size): run folder kept: \(runFolder)")
                throw environmentFailure(error)
            }
            if keep {
                note("N=\(size): run folder kept: \(runFolder)")
            } else {
                try? FileManager.default.removeItem(atPath: runFolder)
            }
            let run = BenchRun(measured, gap: gap, changes: changes, baseline: floor)
            runs.append(run)
            progress("")
            emitLine(run.summary)
        }
        return BenchResults(runs: runs)
    }

    private func preparedBaseline() async throws -> CBaseline? {
        guard let baseline else { return nil }
        let source = URL(fileURLWithPath: baseline).standardizedFileURL.path
        let build = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-bench-c")
        let c = CBaseline(source: source, buildFolder: build)
        progress("building the C baseline")
        try await environment { try await c.build() }
        return c
    }

    /// A failure to start or run something is exit 3, with what went wrong.
    private func environment<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw environmentFailure(error)
        }
    }

    private func environmentFailure(_ error: any Error) -> ExitCode {
        failure(
            error is CancellationError ? "interrupted: every process the bench started is stopped" : "\(error)",
            code: ExitCodes.environment)
    }
}

/// One line rewritten in place on a terminal (stderr); nothing when stderr is not one.
private func progress(_ line: String) {
    guard isatty(STDERR_FILENO) == 1 else { return }
    FileHandle.standardError.write(Data("\r\u{1B}[K\(line)".utf8))
}
