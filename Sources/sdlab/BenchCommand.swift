import ArgumentParser
import Bench
import DeviceContract
import DeviceProcesses
import Foundation

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
            (receivers only take the post); the table shows sdlab over each. After its posts the \
            recheck floor runs the fleet's --changes too (the cleanup floor): each receiver's container \
            holds --records records written by the built-in app's own code, the C broker checks in, \
            and each receiver removes them as the app's wipe-all does; the table shows exposure over \
            this floor's. The floor is built with the package (FloorEmitter, FloorReceiver, \
            FloorBroker beside sdlab); --baseline \
            runs an external one instead. With --repeat K each fleet size runs K times, each time \
            after its own floors, and every figure is the median with its range (min–max). \
            Latencies are in ms, CPU in µs. The devices live in /dev/shm unless --folder says \
            otherwise: this machine's disk would add its own costs to every cleanup. Build with \
            `swift build -c release` first (the whole package, for the floor): a debug build is \
            several times slower. Ctrl-C (SIGINT) or SIGTERM stops the fleet under way and every \
            process it started, writes no table, --json or --plot (the fleets done so far were \
            printed as they ended), and exits 130 (SIGINT) or 143 (SIGTERM).
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
        removeFoldersOfKilledRuns(in: runFoldersBase)
        let (outcome, signal) = await cancellingOnTermination(Task { try await measureAll() })
        progress("")
        let end = try outcome.get()
        if let signal {
            // Nothing is written: a table or file of part of the sweep would pass for all of it.
            let done = if case .interrupted(let done) = end { done } else { total }
            throw interruption(by: signal, after: done, of: total, "fleets")
        }
        guard case .done(let results) = end else { return }
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

    private var total: Int { (fleetSizes ?? []).count * repeats }

    /// The floor, then the sweep against it; a failure of the sweep is exit 3, with what went wrong.
    private func measureAll() async throws -> BenchSweep.End {
        guard let (floor, external) = try await preparedFloor() else { return .interrupted(after: 0) }
        defer { if let external { try? FileManager.default.removeItem(atPath: external.buildFolder) } }
        do {
            return try await sweep.run(against: floor)
        } catch {
            throw failure("\(error)", code: ExitCodes.environment)
        }
    }

    private var sweep: BenchSweep {
        var sweep = BenchSweep(
            sizes: fleetSizes ?? [], repeats: repeats, signals: signals, gap: gap, changes: changes, records: records,
            executable: executable, keep: keep, runFolders: runFoldersBase)
        sweep.progress = { progress($0) }
        sweep.note = { note($0) }
        sweep.sampleTaken = { [repeats] sample, round in
            progress("")
            emitLine(sample.summary + (repeats > 1 ? " [\(round) of \(repeats)]" : ""))
        }
        return sweep
    }

    /// The built floor beside sdlab, or with --baseline the external one, built into a folder
    /// of the bench's own (returned to be removed at the end); nil when a termination signal
    /// stopped the build.
    private func preparedFloor() async throws -> (any Floor, CBaseline?)? {
        guard let baseline else {
            do {
                return (try PackageFloor.locate(), nil)
            } catch {
                throw failure("\(error)", code: ExitCodes.environment)
            }
        }
        let source = URL(fileURLWithPath: baseline).standardizedFileURL.path
        let build = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-bench-c")
        let c = CBaseline(source: source, buildFolder: build)
        progress("building the C baseline")
        do {
            try await c.build()
        } catch {
            try? FileManager.default.removeItem(atPath: build)
            return try interruptedOrFailed(error)
        }
        return (c, c)
    }

    /// Nil for a failure a termination signal caused (the task is cancelled then); any other
    /// is exit 3, with what went wrong.
    private func interruptedOrFailed<T>(_ error: any Error) throws -> T? {
        guard !Task.isCancelled else { return nil }
        throw failure("\(error)", code: ExitCodes.environment)
    }
}

/// One line rewritten in place on a terminal (stderr); nothing when stderr is not one.
private func progress(_ line: String) {
    guard isatty(STDERR_FILENO) == 1 else { return }
    Output.write("\r\u{1B}[K\(line)", to: STDERR_FILENO)
}
