import ArgumentParser
import DeviceContract
import DeviceLaunch
import DeviceProcesses
import Foundation
import Reports
import RunResults
import Runner
import Scenario

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run scenarios: start a device and its apps, drive the steps, check the expectations.",
        discussion: """
            Every scenario is validated before anything starts (as `sdlab check` does). Each then \
            runs on a device of its own in a fresh run folder, --jobs of them at once; each \
            scenario's lines are printed together when it ends (as they come with --jobs 1), and \
            a terminal shows what is running. Each step is shown with ✓ or ✗, a failed \
            expectation as expected against actual. The run folder of a failed scenario is kept \
            and named (--keep keeps every one). --filter, --tag and --skip-tag choose scenarios; \
            --shard K/N then runs one of N disjoint shards that together make the whole choice. \
            Exit 0 when every expectation held, 1 when one failed, 2 for an invalid scenario or \
            bad usage, 3 when the device could not run. Ctrl-C (SIGINT) or SIGTERM stops every \
            process the run started, says how many scenarios ran to their end, writes no report \
            and exits 130 (SIGINT) or 143 (SIGTERM).
            """
    )

    @Argument(help: "Scenario files or folders of them.")
    var scenarios: [String]

    @Option(help: "Scenarios run at once, each on a device of its own (default: the number of cores).")
    var jobs: Int?

    @Option(
        name: .customLong("filter"),
        help: "Run only scenarios whose name or file contains this text, in any case (repeatable: any of them).")
    var filters: [String] = []

    @Option(name: .customLong("tag"), help: "Run only scenarios tagged so (repeatable: any of them).")
    var tags: [String] = []

    @Option(name: .customLong("skip-tag"), help: "Leave out scenarios tagged so (repeatable).")
    var skippedTags: [String] = []

    @Option(
        help: ArgumentHelp(
            "Run shard K of N: the chosen scenarios, in order, are dealt out to N shards.", valueName: "K/N"),
        transform: { text in
            guard let shard = Shard(text) else {
                throw ValidationError("--shard takes K/N with 1 ≤ K ≤ N, such as 2/3; got \(text)")
            }
            return shard
        })
    var shard: Shard?

    @Option(
        name: .customLong("repeat"),
        help: ArgumentHelp(
            "Run each scenario K times: the timing of every run is pooled (samples for `sdlab compare`).",
            valueName: "k"))
    var repeats: Int = 1

    @Option(
        help:
            "Write results.json, trace.jsonl, timing.csv, junit.xml and report.html into this folder (`sdlab report merge` joins such folders)."
    )
    var report: String?

    @Option(help: "Write JUnit XML to this file.")
    var junit: String?

    @Flag(help: "Print the results as one JSON document on stdout (the progress goes to stderr).")
    var json = false

    @Flag(help: "Keep each scenario's run folder (traces, containers, logs) even when it passes.")
    var keep = false

    @Flag(help: "Print the chosen scenarios' files, one per line, and run nothing.")
    var list = false

    /// Bounds that keep a run to what a machine can hold (Docs/outputs.md lists them).
    static let mostRepeats = 1000
    static let mostJobs = 64

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        if !(1...Self.mostRepeats).contains(repeats) { throw ValidationError("--repeat is 1 to \(Self.mostRepeats)") }
        if let jobs, jobs > Self.mostJobs { throw ValidationError("--jobs is 1 to \(Self.mostJobs)") }
    }

    func run() async throws {
        TerminationSignals.install()
        let files = Scenario.files(in: scenarios)
        guard !files.isEmpty else {
            throw failure("no scenario files in \(scenarios.joined(separator: " "))", code: ExitCodes.usage)
        }
        var loaded: [Scenario] = []
        for file in files {
            do throws(ScenarioProblems) {
                loaded.append(try Scenario.load(path: file))
            } catch {
                note(error.description)
            }
        }
        guard loaded.count == files.count else {
            throw failure("invalid scenarios: nothing was run", code: ExitCodes.usage)
        }
        let selection = ScenarioSelection(filters: filters, tags: tags, skippedTags: skippedTags, shard: shard)
        let chosen = selection.apply(loaded)
        if !loaded.contains(where: selection.matches) {
            throw failure("no scenario matches the --filter, --tag and --skip-tag given", code: ExitCodes.usage)
        }
        if list {
            for scenario in chosen { emitLine(VisibleText.escaped(scenario.file)) }
            return
        }
        removeFoldersOfKilledRuns()
        let jobs = self.jobs ?? ProcessInfo.processInfo.activeProcessorCount
        let console = RunConsole(jobs: jobs, total: chosen.count * repeats, toStderr: json)
        if let shard, chosen.isEmpty { console.say("shard \(shard) has no scenarios") }

        let (finished, signal) = await runAll(chosen, jobs: jobs, console: console)
        console.end()
        if let signal { throw interruptedRun(by: signal, finished: finished, total: chosen.count * repeats, console) }
        let reports = Self.reports(of: finished, in: chosen)
        let broken = reports.filter { $0.environmentFailure != nil }.count
        let failed = reports.filter { !$0.passed }.count - broken
        if let shortfall = AppFence.onThisKernel().shortfall { console.say("the write fence: \(shortfall)") }
        console.say("\(reports.filter(\.passed).count) of \(chosen.count) scenarios passed")
        try writeOutputs(reports, console: console)
        if broken > 0 { throw ExitCode(ExitCodes.environment) }
        if failed > 0 { throw ExitCode(ExitCodes.failed) }
    }

    private typealias FinishedRun = ScenarioQueue.FinishedRun

    /// Every run of every scenario, at most `jobs` at once, until a termination signal stops
    /// them: the runs that ended (some perhaps cut short) and the signal, if one came.
    private func runAll(_ scenarios: [Scenario], jobs: Int, console: RunConsole) async -> (
        [FinishedRun], signal: Int32?
    ) {
        let (finished, signal) = await cancellingOnTermination(
            Task {
                await ScenarioQueue.run(scenarios, repeats: repeats, jobs: jobs) { scenario, run, index in
                    await runOne(scenario, run: run, index: index, console: console)
                }
            })
        return (finished.get(), signal)
    }

    /// The reports of a run that ended, in the scenarios' order.
    private static func reports(of finished: [FinishedRun], in scenarios: [Scenario]) -> [ScenarioReport] {
        scenarios.indices.compactMap { index in
            let runs = finished.filter { $0.scenario == index }.sorted { $0.run < $1.run }
            return runs.isEmpty ? nil : ScenarioReport(runs: runs.map { ($0.result, $0.seconds) })
        }
    }

    /// A run a termination signal stopped: the runs that ended before it are counted, those it
    /// cut short neither pass nor fail, and no report is written (none could be whole).
    private func interruptedRun(
        by signal: Int32, finished: [FinishedRun], total: Int, _ console: RunConsole
    ) -> ExitCode {
        let ended = finished.map(\.result).filter { !$0.interrupted }
        let passed = ended.filter(\.passed).count
        let asked = [(report != nil, "--report"), (junit != nil, "--junit"), (json, "--json")].filter(\.0).map(\.1)
        console.say(
            "\(passed) passed, \(ended.count - passed) failed, \(total - ended.count) not run to their end"
                + (asked.isEmpty ? "" : "; nothing written for \(asked.joined(separator: ", "))"))
        return interruption(by: signal, after: ended.count, of: total, repeats > 1 ? "scenario runs" : "scenarios")
    }

    private func writeOutputs(_ reports: [ScenarioReport], console: RunConsole) throws {
        do {
            if json { Output.write(try Reports.json(reports) + Data("\n".utf8), to: STDOUT_FILENO) }
            // The report folder first: --junit may name a file in it.
            if let report { try ReportFolder.write(reports, to: report) }
            if let junit { try ReportFolder.writePrivately(Data(Reports.junit(reports).utf8), to: junit) }
            if let report { console.say("report: \(report)/report.html") }
        } catch {
            throw failure("cannot write the reports: \(error)", code: ExitCodes.environment)
        }
    }

    /// Per model and mechanism: notified and exposure p50 / p90 / p99 / max, in ms, of the pairs
    /// where an app held another user's data; then every pair still open, with why.
    private func timingLines(_ result: ScenarioResult) -> [String] {
        let sdk = Dictionary(uniqueKeysWithValues: result.scenario.apps.map { ($0.name, $0.sdk) })
        let rows = TimingRow.table(result.timings, sdk: sdk)
        guard !rows.isEmpty else { return [] }
        var lines = ["  timing (ms: p50 / p90 / p99 / max)   exposed pairs  notified                     exposure"]
        for row in rows {
            let label = "\(row.model) \(row.mechanism.rawValue)".padding(toLength: 36, withPad: " ", startingAt: 0)
            let count = "\(row.count)\(row.open > 0 ? " (\(row.open) open)" : "")".padding(
                toLength: 14, withPad: " ", startingAt: 0)
            let notified = (row.notified?.text ?? "-").padding(toLength: 28, withPad: " ", startingAt: 0)
            lines.append("  \(label) \(count) \(notified) \(row.exposure?.text ?? "-")")
        }
        let open = SessionChangeTiming.openLines(result.timings)
        if !open.isEmpty { lines.append("  open (another user's data still readable):") }
        return lines + open.map { "    \($0)" }
    }

    /// One run of a scenario in a run folder of its own, its lines to the console as scenario
    /// `index`; a cancelled run still stops what it started before returning.
    private func runOne(_ scenario: Scenario, run: Int, index: Int, console: RunConsole) async -> ScenarioResult {
        let say: @Sendable (String) -> Void = { console.line(index, $0) }
        console.started(index, name: scenario.name + (repeats > 1 ? " #\(run)" : ""))
        say("\(scenario.name)\(repeats > 1 ? " (run \(run) of \(repeats))" : "")  (\(scenario.file))")
        let ran: (result: ScenarioResult, keptIn: String?)
        do {
            ran = try await RunFolderLifecycle(prefix: "sdlab-run", keeping: keep ? .all : .failed).run(
                scenario,
                progress: { step in
                    say("  \(step.passed ? "✓" : "✗") \(step.title)")
                    for failure in step.failures { say("      \(failure)") }
                    for note in step.notes { say("      ! \(note)") }
                },
                fleetProgress: { done, total in console.fleet(index, done: done, of: total) })
        } catch {
            let result = ScenarioResult(scenario: scenario, steps: [], timings: [], environmentFailure: "\(error)")
            console.warn("sdlab: the device could not run: \(error)")
            console.finished(index, passed: false)
            return result
        }
        let result = ran.result
        if result.interrupted { return cutShort(result, keptIn: ran.keptIn, index: index, console: console) }
        if let why = result.environmentFailure { console.warn("sdlab: the device could not run: \(why)") }
        for line in timingLines(result) { say(line) }
        let scan = result.scan.lines
        say(
            "  leak scan (hub user \(result.scan.currentUser ?? "none")):"
                + (scan.isEmpty ? " nothing of another user readable" : ""))
        for line in scan { say("    \(line)") }
        if let folder = ran.keptIn { say("  run folder kept: \(folder)") }
        console.finished(index, passed: result.passed)
        return result
    }

    /// A run a termination signal cut short: no verdict, no scan; its folder went unless --keep.
    private func cutShort(_ result: ScenarioResult, keptIn: String?, index: Int, console: RunConsole) -> ScenarioResult
    {
        console.line(index, "  interrupted: not run to its end")
        if let folder = keptIn { console.line(index, "  run folder kept: \(folder)") }
        console.cutShort(index)
        return result
    }
}
