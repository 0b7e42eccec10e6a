import ArgumentParser
import DeviceContract
import Foundation
import Reports

struct CompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Compare two runs (`sdlab run --json` documents) and exit 1 on a regression.",
        discussion: """
            Matches scenarios by file. A regression is: a scenario the new run lacks, a scenario \
            that passed and now fails, an \
            app whose SDK callbacks changed, more open pairs (another user's data left readable), \
            or a timing that got slower: per scenario, model and mechanism, the notified and \
            exposure samples of every run (gather more with `sdlab run --repeat K`) are compared \
            with a one-sided Mann–Whitney U test, and a slowdown counts when p < --alpha and the \
            median grew by at least --min-ms and --min-percent. With too few samples for p to \
            reach --alpha, a timing is `undecided`, never a regression. Exit 0 without a \
            regression, 1 with one, 2 when a document cannot be read.
            """
    )

    @Argument(help: "The base run's JSON (sdlab run --json > base.json).")
    var base: String

    @Argument(help: "The new run's JSON.")
    var new: String

    @Option(help: "Significance level of the timing test.")
    var alpha = 0.05

    @Option(name: .customLong("min-ms"), help: "Smallest slowdown of the median that counts, in ms.")
    var minimumMilliseconds = 1.0

    @Option(name: .customLong("min-percent"), help: "Smallest slowdown of the median that counts, in % of the base.")
    var minimumPercent = 10.0

    func validate() throws {
        guard alpha > 0, alpha < 1 else { throw ValidationError("--alpha must be between 0 and 1") }
        guard minimumMilliseconds >= 0, minimumPercent >= 0 else {
            throw ValidationError("--min-ms and --min-percent cannot be negative")
        }
    }

    func run() throws {
        var thresholds = RunComparison.Thresholds()
        thresholds.alpha = alpha
        thresholds.minimumMilliseconds = minimumMilliseconds
        thresholds.minimumPercent = minimumPercent
        let comparison = RunComparison(base: try document(base), new: try document(new), thresholds: thresholds)
        emitLine(
            "compare \(base) → \(new) (one-sided Mann–Whitney U, alpha \(alpha); a slowdown counts from "
                + "\(minimumMilliseconds) ms and \(minimumPercent)%)")
        for change in comparison.changes {
            emitLine("  \(Self.label(change.verdict)) \(change.scenario): \(change.what)")
        }
        for timing in comparison.timings {
            let p = timing.verdict == .improvement ? timing.pFaster : timing.pSlower
            emitLine(
                "  \(Self.label(timing.verdict)) \(timing.scenario): \(timing.model) \(timing.mechanism) "
                    + "\(timing.measure) median \(Self.ms(timing.baseMedian)) → \(Self.ms(timing.newMedian)) ms, "
                    + "p = \(Self.probability(p)) (n = \(timing.base.count) and \(timing.new.count))"
                    + (timing.verdict == .undecided ? ": too few samples to tell, gather more with run --repeat" : ""))
        }
        let regressions = comparison.regressions
        emitLine(regressions == 0 ? "no regression" : "\(regressions) regression\(regressions == 1 ? "" : "s")")
        if regressions > 0 { throw ExitCode(ExitCodes.failed) }
    }

    private func document(_ path: String) throws -> RunDocument {
        do {
            return try RunDocument.read(path)
        } catch {
            throw failure("\(error)", code: ExitCodes.usage)
        }
    }

    private static func label(_ verdict: RunComparison.Verdict) -> String {
        verdict.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0)
    }

    private static func ms(_ value: Double) -> String { String(format: "%.2f", value) }

    private static func probability(_ value: Double) -> String {
        value < 0.0001 ? "< 0.0001" : String(format: "%.4f", value)
    }
}
