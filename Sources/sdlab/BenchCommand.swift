import ArgumentParser
import Bench
import DeviceProcesses
import Foundation
import ManagedApp

struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Time broadcasts to fleets of apps, against plain-C floors measured in the same run.",
        discussion: """
            For each fleet size N a device of its own gets N background-mode MSAL apps (wipe-all). \
            The bench times the launch (spawn → every app ready), posts --signals account-change \
            notifications --gap apart and times each delivery (post → the app's SDK saw it) and, \
            per post, the slowest app (nobody is signed in yet, so each app's check gets the same \
            empty answer as a C receiver's); then checks the device in --changes times while every app \
            holds --records records, and times each app's exposure (the hub's commit → its cleanup \
            done). It counts lost deliveries, reads each app's PSS and the CPU time of the bus, the \
            hub and the apps per post and per session change. Right before each fleet, two plain-C floors run on the same \
            bus with N receivers and the same posts: the recheck floor (each receiver asks a C \
            broker after posts, as an MSAL app must: the like-for-like one) and the plain floor \
            (receivers only take the post); the table shows sdlab over each. The floor is built \
            with the package (FloorEmitter, FloorReceiver, FloorBroker beside sdlab); --baseline \
            runs an external one instead. With --repeat K each fleet size runs K times, each time \
            after its own floors, and every figure is the median with its range (min–max). \
            Latencies are in ms, CPU in µs. The devices live in /dev/shm unless --folder says \
            otherwise: this machine's disk would add its own costs to every cleanup. Build with \
            `swift build -c release` first (the whole package, for the floor): a debug build is \
            several times slower.
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
        name: .customLong("repeat"),
        help: ArgumentHelp("Runs of each fleet size, each after its own floors: medians and ranges.", valueName: "k"))
    var repeats = 1

    @Option(
        help: ArgumentHelp(
            "An external C floor instead of the built one: a folder whose build.sh builds it and whose "
                + "`run.sh fanout N M GAP_US` runs it (with RECHECK=1 for the recheck floor).",
            valueName: "dir"))
    var baseline: String?

    @Option(
        help: ArgumentHelp(
            "Write the results as JSON to this file: {\"runs\": [one object per fleet size]}.", valueName: "file"))
    var json: String?

    @Option(
        help: ArgumentHelp(
            "Draw latency against fleet size, sdlab and both C floors, as SVG into this file.", valueName: "file"))
    var plot: String?

    @Option(
        help: ArgumentHelp(
            "Where the fleets' run folders go (default: /dev/shm when it exists, else $TMPDIR).",
            valueName: "dir"))
    var folder: String?

    @Option(
        help: ArgumentHelp(
            "A team's MSAL app built on the device host (Docs/your-app.md) to run the fleets of, instead of sdlab-app.",
            valueName: "program"))
    var executable: String?

    @Flag(help: "Keep each fleet's and floor's run folder (traces, containers, logs).")
    var keep = false

    func validate() throws {
        guard let sizes = fleetSizes, !sizes.isEmpty, sizes.allSatisfy({ (1...2000).contains($0) }) else {
            throw ValidationError("--apps takes fleet sizes from 1 to 2000, comma-separated, such as 1,10,100")
        }
        guard (1...100_000).contains(signals) else { throw ValidationError("--signals is 1 to 100000") }
        guard gap >= .microseconds(100), gap <= .seconds(10) else { throw ValidationError("--gap is 100us to 10s") }
        guard (0...1000).contains(changes) else { throw ValidationError("--changes is 0 to 1000") }
        guard (1...10_000).contains(records) else { throw ValidationError("--records is 1 to 10000") }
        guard (1...100).contains(repeats) else { throw ValidationError("--repeat is 1 to 100") }
        if let executable, !FileManager.default.isExecutableFile(atPath: executable) {
            throw ValidationError("--executable \(executable): not an executable file")
        }
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
        let (floor, external) = try await preparedFloor()
        defer { if let external { try? FileManager.default.removeItem(atPath: external.buildFolder) } }
        var runs: [BenchRun] = []
        for size in fleetSizes ?? [] {
            var samples: [BenchSample] = []
            for round in 1...repeats {
                try Task.checkCancellation()
                let label = "N=\(size)" + (repeats > 1 ? " (\(round) of \(repeats))" : "")
                var floors = BenchSample.Floors(recheck: nil, plain: nil)
                for recheck in [false, true] {
                    progress("\(label): C floor\(recheck ? " with recheck" : "")")
                    let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-floor", in: runFoldersBase)
                    let measured: FloorMeasurement
                    do {
                        measured = try await floor.fanout(
                            receivers: size, signals: signals, gap: gap, recheck: recheck, in: folder)
                    } catch {
                        if (try? FileManager.default.contentsOfDirectory(atPath: folder))?.isEmpty ?? true {
                            try? FileManager.default.removeItem(atPath: folder)  // an external floor's own
                        } else {
                            note("\(label): floor folder kept: \(folder)")
                        }
                        throw environmentFailure(error)
                    }
                    finish(folder, label)
                    if recheck { floors.recheck = measured } else { floors.plain = measured }
                }
                let runFolder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-bench", in: runFoldersBase)
                var bench = FleetBench(apps: size, signals: signals, gap: gap, changes: changes, records: records)
                bench.progress = { progress("\(label): \($0)") }
                bench.executable = executable
                let measured: FleetMeasurement
                do {
                    measured = try await bench.run(in: runFolder)
                } catch {
                    note("\(label): run folder kept: \(runFolder)")
                    throw environmentFailure(error)
                }
                finish(runFolder, label)
                let sample = BenchSample(measured, gap: gap, changes: changes, floors: floors)
                samples.append(sample)
                progress("")
                emitLine(sample.summary + (repeats > 1 ? " [\(round) of \(repeats)]" : ""))
            }
            runs.append(try BenchRun(samples: samples))
        }
        return BenchResults(runs: runs)
    }

    /// Removes a run folder, or with --keep says where it is.
    private func finish(_ folder: String, _ label: String) {
        if keep {
            note("\(label): run folder kept: \(folder)")
        } else {
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    /// The built floor beside sdlab, or with --baseline the external one, built into a folder
    /// of the bench's own (returned to be removed at the end).
    private func preparedFloor() async throws -> (any Floor, CBaseline?) {
        guard let baseline else { return (try await environment { try PackageFloor.locate() }, nil) }
        let source = URL(fileURLWithPath: baseline).standardizedFileURL.path
        let build = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-bench-c")
        let c = CBaseline(source: source, buildFolder: build)
        progress("building the C baseline")
        do {
            try await c.build()
        } catch {
            try? FileManager.default.removeItem(atPath: build)
            throw environmentFailure(error)
        }
        return (c, c)
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
    Output.write("\r\u{1B}[K\(line)", to: STDERR_FILENO)
}
