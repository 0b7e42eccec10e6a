import ArgumentParser
import DeviceContract
import DeviceProcesses
import Faults
import Foundation
import Scenario

struct FuzzCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fuzz",
        abstract: "Run seeded random fault sequences on real devices; shrink a failure to a minimal scenario file.",
        discussion: """
            Each sequence is a random run of session changes, app launches, terminations, crashes, \
            suspensions, writes, spoofed posts, hub crashes and restarts, locks and offline periods, \
            reproducible from its seed. The domain's models predict how every step ends and what \
            every app believes; a sequence first runs on them alone, then as a scenario on a real \
            device (bus, hub, one process per app). Checked throughout: the predicted errors and \
            beliefs at checkpoints, no readable record of another user in an app that handled the \
            latest session change, at most one callback of a kind per check, a generation that \
            never goes back; at the end, after every app came to the foreground, each acts for the \
            hub's user and leaks nothing; after the run, no process is left. \
            Writes are of every record kind, `external` too, whose key the hub's key service gives. \
            --focus and --weight steer which apps the actions that concern one app pick. \
            A failing sequence is shrunk (fewer and fewer of its actions, then of its single steps \
            and expectations, each expectation predicted again, each candidate run again) and written \
            as a scenario file that `sdlab run` reproduces; what failed is printed as FILE:LINE:COL \
            in that file. Exit 0 when every sequence held, 1 when one failed, 2 for bad usage, 3 \
            when a device could not run. Ctrl-C (SIGINT) or SIGTERM stops the sequence under way \
            (not counted, not shrunk) and every process it started, and exits 130 (SIGINT) or 143 \
            (SIGTERM); a failure found before it is still written, shrunk as far as it got.
            """
    )

    @Option(help: "How many sequences to run.")
    var sequences = 20

    @Option(help: "Random actions per sequence (after enrollment, a check-out and every app launched).")
    var actions = 40

    @Option(help: "The first sequence's seed, as printed (0x… or decimal); each next one adds 1. Default: random.")
    var seed: String?

    @Option(
        help:
            "Take the device, users and apps (your own apps and cleanup hooks) from this scenario; its steps are not used."
    )
    var scenario: String?

    @Flag(help: "Run the sequences on the domain's models only (thousands a second), not on real devices.")
    var domainOnly = false

    @Option(help: "At most this many shrinking runs for a failure on a real device.")
    var shrinkRuns = 60

    @Option(help: "Where a failing sequence's scenario file is written.")
    var out = "."

    @Option(
        help: ArgumentHelp(
            """
            Pick these apps (names of the scenario's apps or fleets; repeat it or give a comma list) \
            for \(AppFocus.focusedShare)% of the random actions that concern one app; the other apps take \
            the rest.
            """, valueName: "apps"))
    var focus: [String] = []

    @Option(
        help: ArgumentHelp(
            """
            How often an app (or each app of a fleet) is picked, relative to the others: a whole \
            number, 1 unless given, 0 for never (repeat it or give a comma list).
            """, valueName: "app=n"))
    var weight: [String] = []

    /// Bounds that keep a run to what a machine can hold (Docs/outputs.md lists them).
    static let mostSequences = 100_000
    static let mostActions = 10_000
    static let mostShrinkRuns = 10_000

    func validate() throws {
        guard (1...Self.mostSequences).contains(sequences), (1...Self.mostActions).contains(actions),
            (0...Self.mostShrinkRuns).contains(shrinkRuns)
        else {
            throw ValidationError(
                "--sequences is 1 to \(Self.mostSequences), --actions 1 to \(Self.mostActions), --shrink-runs 0 to "
                    + "\(Self.mostShrinkRuns)")
        }
        if let seed, Self.parseSeed(seed) == nil {
            throw ValidationError("--seed: \(seed) is not a number (0x… or decimal)")
        }
        for entry in Self.items(weight) where Self.parseWeight(entry) == nil {
            throw ValidationError("--weight: \(entry) is not APP=N with N a whole number from 0")
        }
    }

    /// Repeated options and comma lists alike.
    static func items(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }.filter {
            !$0.isEmpty
        }
    }

    static func parseWeight(_ text: String) -> (app: String, weight: Int)? {
        let parts = text.split(separator: "=", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, let weight = Int(parts[1]), weight >= 0 else { return nil }
        return (String(parts[0]), weight)
    }

    /// `--focus` and `--weight` on the scenario's apps.
    private func appFocus(on base: Scenario) throws -> AppFocus {
        var result = AppFocus(focused: Set(try Self.apps(Self.items(focus), option: "--focus", in: base)))
        for (name, weight) in Self.items(self.weight).compactMap(Self.parseWeight) {
            for app in try Self.apps([name], option: "--weight", in: base) { result.weights[app] = weight }
        }
        return result
    }

    /// The focus and weights for the header, as given: `, focus on notes (80% of the app actions)`.
    private var steering: String {
        let focused = Self.items(focus), weights = Self.items(weight)
        return
            (focused.isEmpty
            ? "" : ", focus on \(focused.joined(separator: ", ")) (\(AppFocus.focusedShare)% of the app actions)")
            + (weights.isEmpty ? "" : ", weights \(weights.joined(separator: ", "))")
    }

    /// The apps that names of apps or fleets stand for; any other name is a usage error.
    private static func apps(_ names: [String], option: String, in base: Scenario) throws -> [String] {
        do throws(AppFocus.UnknownApps) {
            return try AppFocus.apps(named: names, in: base)
        } catch {
            throw failure("\(option): \(error)", code: ExitCodes.usage)
        }
    }

    static func parseSeed(_ text: String) -> UInt64? {
        text.lowercased().hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
    }

    func run() async throws {
        TerminationSignals.install()
        removeFoldersOfKilledRuns()
        let base = try loadBase()
        let focus = try appFocus(on: base)
        let first = seed.flatMap(Self.parseSeed) ?? UInt64.random(in: 0...UInt64.max)
        emitLine(
            "\(sequences) sequences of \(actions) actions from seed \(FaultSequence.seedText(first)), "
                + "\(base.apps.count) apps\(steering)\(domainOnly ? ", domain only" : "")")
        // A termination signal stops the sequence under way; the run still stops what it started.
        let campaign = FuzzCampaign(
            base: base, sequences: sequences, actions: actions, firstSeed: first, focus: focus, domainOnly: domainOnly,
            shrinkRuns: shrinkRuns, out: out, say: { emitLine($0) }, warn: { note($0) })
        let (outcome, signal) = await cancellingOnTermination(Task { await campaign.run() })
        let (tally, environment) = outcome.get()
        emitLine(tally.summary(domainOnly: domainOnly, interrupted: signal != nil))
        if let signal { throw interruption(by: signal, after: tally.sequences, of: sequences, "sequences") }
        if environment { throw failure("a device could not run", code: ExitCodes.environment) }
        if tally.failed > 0 { throw ExitCode(ExitCodes.failed) }
    }

    private func loadBase() throws -> Scenario {
        guard let scenario else { return FaultSequence.defaultDevice }
        do throws(ScenarioProblems) {
            return try Scenario.load(path: scenario)
        } catch {
            note(error.description)
            throw failure("invalid scenario: nothing was run", code: ExitCodes.usage)
        }
    }
}
