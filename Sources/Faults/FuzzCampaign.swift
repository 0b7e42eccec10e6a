import DeviceProcesses
import Foundation
import RunResults
import Runner
import Scenario

/// `sdlab fuzz`'s campaign: seeded sequences, each run on the domain's models, then as a scenario
/// on a real device of its own; a failure shrunk and written as a scenario file that `sdlab run`
/// reproduces. What it does is told as lines through `say` (progress) and `warn` (trouble).
public struct FuzzCampaign: Sendable {
    public let base: Scenario
    public let sequences: Int
    public let actions: Int
    public let firstSeed: UInt64
    public let focus: AppFocus
    public let domainOnly: Bool
    public let shrinkRuns: Int
    /// Where a failing sequence's scenario file is written.
    public let out: String
    let say: @Sendable (String) -> Void
    let warn: @Sendable (String) -> Void

    public init(
        base: Scenario, sequences: Int, actions: Int, firstSeed: UInt64, focus: AppFocus, domainOnly: Bool,
        shrinkRuns: Int, out: String, say: @escaping @Sendable (String) -> Void,
        warn: @escaping @Sendable (String) -> Void
    ) {
        self.base = base
        self.sequences = sequences
        self.actions = actions
        self.firstSeed = firstSeed
        self.focus = focus
        self.domainOnly = domainOnly
        self.shrinkRuns = shrinkRuns
        self.out = out
        self.say = say
        self.warn = warn
    }

    /// Runs the sequences until one cannot run on a device (`environment`) or the task is
    /// cancelled; only sequences that ran to their end count in the tally.
    public func run() async -> (tally: FuzzTally, environment: Bool) {
        var tally = FuzzTally()
        for index in 0..<sequences where !Task.isCancelled {
            let sequence = FaultSequence.random(
                base: base, seed: firstSeed &+ UInt64(index), length: actions, focus: focus)
            switch await runOne(sequence, label: "[\(index + 1)/\(sequences)]", tally: &tally) {
            case .environment: return (tally, true)
            case .interrupted: return (tally, false)
            case .held, .failed: continue
            }
        }
        return (tally, false)
    }

    private enum Outcome { case held, failed, environment, interrupted }

    private func runOne(_ sequence: FaultSequence, label: String, tally: inout FuzzTally) async -> Outcome {
        let seedText = FaultSequence.seedText(sequence.seed)
        let built = sequence.build()
        if let violation = built.failures.first {
            tally.add(sequence, steps: built.scenario.steps.count)
            say("\(label) seed \(seedText): ✗ in the domain: \(violation.text)")
            return write(await sequence.shrunkInDomain(), from: sequence, tally: &tally)
        }
        guard !domainOnly else {
            tally.add(sequence, steps: built.scenario.steps.count)
            return .held
        }
        let started = ContinuousClock.now
        let run = await Self.runOnDevice(built.scenario, file: path(forSeed: sequence.seed))
        let elapsed = ContinuousClock.now - started
        switch run {
        case .interrupted: return .interrupted
        case .environment(let why):
            warn("\(label) seed \(seedText): the device could not run: \(why)")
            return .environment
        case .held:
            tally.add(sequence, steps: built.scenario.steps.count, onDeviceFor: elapsed)
            say(
                "\(label) seed \(seedText): ✓ \(built.scenario.steps.count) steps, "
                    + "\(sequence.faults.values.reduce(0, +)) faults")
            return .held
        case .failed(let failures):
            tally.add(sequence, steps: built.scenario.steps.count, onDeviceFor: elapsed)
            say("\(label) seed \(seedText): ✗ on the device: \(failures[0].text)")
            let file = path(forSeed: sequence.seed)
            var shrinker = DeviceShrinker(limit: shrinkRuns) {
                await Self.runOnDevice($0, file: file)
            } willRun: { [say, shrinkRuns] run, steps in
                say("  shrinking: run \(run) of at most \(shrinkRuns), \(steps) steps")
            }
            let reproduction = await shrinker.shrink(sequence, failing: built, with: failures)
            if Task.isCancelled { say("  shrinking interrupted: the smallest failing sequence found is written") }
            return write(reproduction, from: sequence, tally: &tally)
        }
    }

    /// The scenario as a scenario file's text, read back, run on a device of its own; then
    /// nothing it started may be left.
    static func runOnDevice(_ built: Scenario, file: String) async -> DeviceRun {
        let scenario: Scenario
        do throws(ScenarioProblems) {
            scenario = try Scenario.parse(built.yaml, file: file)
        } catch {
            return .environment("the sequence did not make a valid scenario: \(error.description)")
        }
        let ran: (result: ScenarioResult, found: [(pid: Int32, commandLine: String)], keptIn: String?)
        do {
            // What the run left running is looked for before its folder goes.
            ran = try await RunFolderLifecycle(prefix: "sdlab-fuzz", keeping: .never).run(scenario) { result, folder in
                result.interrupted || result.environmentFailure != nil ? [] : LiveProcesses.mentioning(folder)
            }
        } catch {
            return .environment("\(error)")
        }
        let result = ran.result
        if result.interrupted { return .interrupted }
        if let why = result.environmentFailure { return .environment(why) }
        var failures = SequenceFailure.all(in: result)
        if !ran.found.isEmpty {
            failures.append(
                SequenceFailure(
                    step: nil, signature: "left running after the run",
                    text: "left running after the run: "
                        + ran.found.map { "\($0.pid) \($0.commandLine)" }.joined(separator: "; ")))
        }
        return failures.isEmpty ? .held : .failed(failures)
    }

    private func path(forSeed seed: UInt64) -> String { out + "/fuzz-\(FaultSequence.seedText(seed)).yaml" }

    /// The shrunk scenario's file, with what failed in comments at its end; what failed is
    /// then told as `FILE:LINE:COL: …`, at the step (or expectation) of the file as read back.
    private func write(_ reproduction: Reproduction, from original: FaultSequence, tally: inout FuzzTally) -> Outcome {
        tally.failed += 1
        let scenario = reproduction.built.scenario
        let file = path(forSeed: original.seed)
        do {
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            try scenario.yaml.write(toFile: file, atomically: true, encoding: .utf8)
            let written = Self.readBack(file, scenario.yaml)
            let lines = reproduction.failures.prefix(10).map { $0.located(in: written) }
            let trailer =
                [
                    "",
                    "# sdlab fuzz, seed \(FaultSequence.seedText(original.seed)): shrunk from \(original.actions.count) "
                        + "actions to \(scenario.steps.count) steps. What failed:",
                ] + lines.map { "#   \($0)" }
            try (scenario.yaml + trailer.joined(separator: "\n") + "\n").write(
                toFile: file, atomically: true, encoding: .utf8)
            say("  shrunk to \(scenario.steps.count) steps: \(file)  (reproduce: sdlab run \(file))")
            for line in lines { say("  " + line) }
        } catch {
            warn("sdlab: cannot write \(file): \(error)")
        }
        return .failed
    }

    /// The written file as `sdlab run` reads it; if it cannot (a file it names is missing
    /// here), its text read without those checks, which gives the same locations.
    private static func readBack(_ file: String, _ text: String) -> Scenario {
        (try? Scenario.load(path: file)) ?? (try? Scenario.parse(text, file: file))
            ?? Scenario(name: "", file: file, device: Device(), users: [], apps: [], steps: [])
    }
}

/// What a campaign did, for its last line: the sequences that ran to their end.
public struct FuzzTally: Sendable {
    public private(set) var sequences = 0
    var steps = 0
    var deviceSteps = 0
    var deviceTime = Duration.zero
    var faults: [String: Int] = [:]
    public internal(set) var failed = 0

    mutating func add(_ sequence: FaultSequence, steps: Int, onDeviceFor time: Duration? = nil) {
        sequences += 1
        self.steps += steps
        faults.merge(sequence.faults, uniquingKeysWith: +)
        if let time {
            deviceSteps += steps
            deviceTime += time
        }
    }

    /// No "every invariant held" after an interruption: the sequences not run vouch for nothing.
    public func summary(domainOnly: Bool, interrupted: Bool) -> String {
        let injected = faults.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        let seconds = deviceTime.formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 1)))
        let device = domainOnly ? "" : ", \(deviceSteps) on real devices in \(seconds)"
        return "\(steps) steps\(device); faults injected: \(injected); \(verdict(interrupted: interrupted))"
    }

    private func verdict(interrupted: Bool) -> String {
        if failed > 0 { return "\(failed) failed" }
        return interrupted ? "no failure before the interruption" : "every invariant held"
    }
}
