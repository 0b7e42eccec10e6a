import ArgumentParser
import DeviceProcesses
import Faults
import Foundation
import Runner
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
            A failing sequence is shrunk (fewer and fewer of its actions, each candidate run again) \
            and written as a scenario file that `sdlab run` reproduces. Exit 0 when every \
            sequence held, 1 when one failed, 2 for bad usage, 3 when a device could not run.
            """
    )

    @Option(help: "How many sequences to run.")
    var sequences = 20

    @Option(help: "Random actions per sequence (after enrollment, a check-out and every app launched).")
    var actions = 40

    @Option(help: "The first sequence's seed, as printed (0x… or decimal); each next one adds 1. Default: random.")
    var seed: String?

    @Option(help: "Take the device, users and apps (your own apps and cleanup hooks) from this scenario; its steps are not used.")
    var scenario: String?

    @Flag(help: "Run the sequences on the domain's models only (thousands a second), not on real devices.")
    var domainOnly = false

    @Option(help: "At most this many shrinking runs for a failure on a real device.")
    var shrinkRuns = 60

    @Option(help: "Where a failing sequence's scenario file is written.")
    var out = "."

    func validate() throws {
        guard sequences > 0, actions > 0, shrinkRuns >= 0 else {
            throw ValidationError("--sequences and --actions must be at least 1, --shrink-runs at least 0")
        }
        if let seed, Self.parseSeed(seed) == nil { throw ValidationError("--seed: \(seed) is not a number (0x… or decimal)") }
    }

    static func parseSeed(_ text: String) -> UInt64? {
        text.lowercased().hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
    }

    func run() async throws {
        TerminationSignals.install()
        let base = try loadBase()
        let first = seed.flatMap(Self.parseSeed) ?? UInt64.random(in: 0...UInt64.max)
        emitLine("\(sequences) sequences of \(actions) actions from seed \(FaultSequence.seedText(first)), "
                 + "\(base.apps.count) apps\(domainOnly ? ", domain only" : "")")
        // A termination signal stops the sequence under way; the run still stops what it started.
        let (tally, environment) = await cancellingOnTermination(Task { await runAll(base: base, from: first) })
        emitLine(tally.summary(domainOnly: domainOnly))
        if environment { throw failure("a device could not run", code: ExitCodes.environment) }
        if tally.failed > 0 { throw ExitCode(ExitCodes.failed) }
    }

    private func runAll(base: Scenario, from first: UInt64) async -> (Tally, environment: Bool) {
        var tally = Tally()
        for index in 0..<sequences where !Task.isCancelled {
            let sequence = FaultSequence.random(base: base, seed: first &+ UInt64(index), length: actions)
            tally.faults.merge(sequence.faults, uniquingKeysWith: +)
            if await runOne(sequence, label: "[\(index + 1)/\(sequences)]", tally: &tally) == .environment { return (tally, true) }
        }
        return (tally, false)
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

    private enum Outcome { case held, failed, environment }

    private func runOne(_ sequence: FaultSequence, label: String, tally: inout Tally) async -> Outcome {
        let seedText = FaultSequence.seedText(sequence.seed)
        let (scenario, violations) = sequence.scenario()
        tally.steps += scenario.steps.count
        if !violations.isEmpty {
            emitLine("\(label) seed \(seedText): ✗ in the domain: \(violations[0])")
            var shrunk = sequence
            shrunk.actions = await Shrinking.shrink(sequence.actions, budget: 5000) { actions in
                !FaultSequence(base: sequence.base, seed: sequence.seed, actions: actions).scenario().violations.isEmpty
            }
            return write(shrunk, from: sequence, why: shrunk.scenario().violations, tally: &tally)
        }
        guard !domainOnly else { return .held }
        let started = ContinuousClock.now
        let run = await runOnDevice(sequence)
        tally.deviceSteps += scenario.steps.count
        tally.deviceTime += ContinuousClock.now - started
        switch run {
        case .environment(let why):
            note("\(label) seed \(seedText): the device could not run: \(why)")
            return .environment
        case .held:
            emitLine("\(label) seed \(seedText): ✓ \(scenario.steps.count) steps, \(sequence.faults.values.reduce(0, +)) faults")
            return .held
        case .failed(let failures):
            emitLine("\(label) seed \(seedText): ✗ on the device: \(failures[0])")
            var (shrunk, why, runs) = (sequence, failures, 0)
            shrunk.actions = await Shrinking.shrink(sequence.actions, budget: shrinkRuns) { actions in
                runs += 1
                emitLine("  shrinking: run \(runs) of at most \(shrinkRuns), \(actions.count) of \(sequence.actions.count) actions")
                let candidate = FaultSequence(base: sequence.base, seed: sequence.seed, actions: actions)
                guard case .failed(let failures) = await runOnDevice(candidate) else { return false }
                why = failures
                return true
            }
            return write(shrunk, from: sequence, why: why, tally: &tally)
        }
    }

    private enum DeviceRun { case held, failed([String]), environment(String) }

    /// The sequence as a scenario file's text, read back, run on a device of its own; then
    /// nothing it started may be left.
    private func runOnDevice(_ sequence: FaultSequence) async -> DeviceRun {
        let scenario: Scenario
        do throws(ScenarioProblems) {
            scenario = try Scenario.parse(sequence.scenario().scenario.yaml, file: path(for: sequence))
        } catch {
            return .environment("the sequence did not make a valid scenario: \(error.description)")
        }
        let folder: String
        do {
            folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-fuzz")
        } catch {
            return .environment("\(error)")
        }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = await ScenarioRun.run(scenario, in: folder)
        if let why = result.environmentFailure { return .environment(why) }
        var failures = result.steps.flatMap(\.failures)
        let left = LiveProcesses.mentioning(folder)
        if !left.isEmpty { failures.append("left running after the run: " + left.map { "\($0.pid) \($0.commandLine)" }.joined(separator: "; ")) }
        return failures.isEmpty ? .held : .failed(failures)
    }

    private func path(for sequence: FaultSequence) -> String { out + "/fuzz-\(FaultSequence.seedText(sequence.seed)).yaml" }

    /// The shrunk sequence's scenario file, with what failed in comments at its end (so that
    /// the locations in them are the file's own).
    private func write(_ shrunk: FaultSequence, from original: FaultSequence, why: [String], tally: inout Tally) -> Outcome {
        tally.failed += 1
        let file = path(for: shrunk)
        let trailer = ["", "# sdlab fuzz, seed \(FaultSequence.seedText(shrunk.seed)): shrunk from \(original.actions.count) "
                       + "to \(shrunk.actions.count) actions. What failed:"] + why.prefix(10).map { "#   \($0)" }
        do {
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            try (shrunk.scenario().scenario.yaml + trailer.joined(separator: "\n") + "\n")
                .write(toFile: file, atomically: true, encoding: .utf8)
            emitLine("  shrunk to \(shrunk.actions.count) actions: \(file)  (reproduce: sdlab run \(file))")
        } catch {
            note("sdlab: cannot write \(file): \(error)")
        }
        return .failed
    }
}

/// What a fuzzing run did, for its last line.
private struct Tally {
    var steps = 0
    var deviceSteps = 0
    var deviceTime = Duration.zero
    var faults: [String: Int] = [:]
    var failed = 0

    func summary(domainOnly: Bool) -> String {
        let injected = faults.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        let device = domainOnly ? "" : ", \(deviceSteps) on real devices in \(deviceTime.formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 1))))"
        return "\(steps) steps\(device); faults injected: \(injected); \(failed == 0 ? "every invariant held" : "\(failed) failed")"
    }
}
