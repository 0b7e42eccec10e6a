import ArgumentParser
import DeviceProcesses
import Foundation
import Reports
import Runner
import Scenario

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run scenarios: start a device and its apps, drive the steps, check the expectations.",
        discussion: """
            Every scenario is validated before anything starts (as `sdlab check` does). Each then \
            runs on a device of its own in a fresh run folder; each step is shown with ✓ or ✗, a \
            failed expectation as expected against actual. The run folder of a failed scenario is \
            kept and named (--keep keeps every one). Exit 0 when every expectation held, 1 when one failed, 2 for an \
            invalid scenario or bad usage, 3 when the device could not run. Ctrl-C stops every \
            process the run started.
            """
    )

    @Argument(help: "Scenario files or folders of them.")
    var scenarios: [String]

    @Option(help: "Write trace.jsonl, timing.csv, junit.xml and report.html into this folder.")
    var report: String?

    @Option(help: "Write JUnit XML to this file.")
    var junit: String?

    @Flag(help: "Print the results as one JSON document on stdout (the progress goes to stderr).")
    var json = false

    @Flag(help: "Keep each scenario's run folder (traces, containers, logs) even when it passes.")
    var keep = false

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

        var results: [ScenarioResult] = []
        for scenario in loaded { results.append(await runInterruptibly(scenario)) }
        let broken = results.filter { $0.environmentFailure != nil }.count
        let failed = results.filter { !$0.passed }.count - broken
        say("\(loaded.count - failed - broken) of \(loaded.count) scenarios passed")
        try writeOutputs(results)
        if broken > 0 { throw ExitCode(ExitCodes.environment) }
        if failed > 0 { throw ExitCode(ExitCodes.failed) }
    }

    /// Progress for a person: stdout, or stderr when stdout carries the JSON.
    private func say(_ line: String) {
        if json { note(line) } else { emitLine(line) }
    }

    private func writeOutputs(_ results: [ScenarioResult]) throws {
        do {
            if json { FileHandle.standardOutput.write(try Reports.json(results) + Data("\n".utf8)) }
            // The report folder first: --junit may name a file in it.
            if let report { try FileManager.default.createDirectory(atPath: report, withIntermediateDirectories: true) }
            if let junit { try Reports.junit(results).write(toFile: junit, atomically: true, encoding: .utf8) }
            if let report {
                try Reports.traceLines(results).write(
                    toFile: report + "/trace.jsonl", atomically: true, encoding: .utf8)
                try Reports.timingCSV(results).write(toFile: report + "/timing.csv", atomically: true, encoding: .utf8)
                try Reports.junit(results).write(toFile: report + "/junit.xml", atomically: true, encoding: .utf8)
                try ReportPage.html(results).write(toFile: report + "/report.html", atomically: true, encoding: .utf8)
                say("report: \(report)/report.html")
            }
        } catch {
            throw failure("cannot write the reports: \(error)", code: ExitCodes.environment)
        }
    }

    /// Per model and mechanism: notified and exposure p50 / p90 / p99 / max, in ms, of the pairs
    /// where an app held another user's data; then every pair still open, with why.
    private func printTiming(_ result: ScenarioResult) {
        let sdk = Dictionary(uniqueKeysWithValues: result.scenario.apps.map { ($0.name, $0.sdk) })
        let rows = TimingRow.table(result.timings, sdk: sdk)
        guard !rows.isEmpty else { return }
        say("  timing (ms: p50 / p90 / p99 / max)   exposed pairs  notified                     exposure")
        for row in rows {
            let label = "\(row.model) \(row.mechanism.rawValue)".padding(toLength: 36, withPad: " ", startingAt: 0)
            let count = "\(row.count)\(row.open > 0 ? " (\(row.open) open)" : "")".padding(
                toLength: 14, withPad: " ", startingAt: 0)
            let notified = (row.notified?.text ?? "-").padding(toLength: 28, withPad: " ", startingAt: 0)
            say("  \(label) \(count) \(notified) \(row.exposure?.text ?? "-")")
        }
        let open = SessionChangeTiming.openLines(result.timings)
        if !open.isEmpty { say("  open (another user's data still readable):") }
        for line in open { say("    \(line)") }
    }

    /// One scenario in a run folder of its own; a termination signal cancels it, and the run
    /// still stops what it started before returning.
    private func runInterruptibly(_ scenario: Scenario) async -> ScenarioResult {
        say("\(scenario.name)  (\(scenario.file))")
        let folder: String
        do {
            folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-run")
        } catch {
            return ScenarioResult(scenario: scenario, steps: [], timings: [], environmentFailure: "\(error)")
        }
        let result = await cancellingOnTermination(
            Task {
                await ScenarioRun.run(
                    scenario, in: folder,
                    progress: { step in
                        say("  \(step.passed ? "✓" : "✗") \(step.title)")
                        for failure in step.failures { say("      \(failure)") }
                        for note in step.notes { say("      ! \(note)") }
                    },
                    fleetProgress: { done, total in
                        // On a terminal only: one line rewritten in place on stderr.
                        guard isatty(STDERR_FILENO) == 1 else { return }
                        FileHandle.standardError.write(
                            Data("\r  … \(done) of \(total) apps\(done == total ? "\r\u{1B}[K" : "")".utf8))
                    })
            })
        if let why = result.environmentFailure { note("sdlab: the device could not run: \(why)") }
        printTiming(result)
        let scan = result.scan.lines
        say(
            "  leak scan (hub user \(result.scan.currentUser ?? "none")):"
                + (scan.isEmpty ? " nothing of another user readable" : ""))
        for line in scan { say("    \(line)") }
        if result.passed && !keep {
            try? FileManager.default.removeItem(atPath: folder)
        } else {
            say("  run folder kept: \(folder)")
        }
        return result
    }
}
