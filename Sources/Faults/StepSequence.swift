import Scenario

/// A fault sequence's scenario taken apart step by step, for shrinking finer than whole
/// actions: each step it takes (the final launches and foregrounds too), and each
/// expectation (the hub's or one app's) at each checkpoint. The settles are not parts: they
/// are put back wherever a step needs a settled device. Built again, every step gets the
/// error the models now predict (a step they can no longer take is left out) and every
/// expectation what they now predict, so a shrunk scenario says nothing the models do not.
public struct StepSequence: Sendable {
    public enum Part: Equatable, Sendable {
        case step(StepKind)
        /// The expectation of `target` (an app or `hub`) at the `checkpoint`th checkpoint.
        case expect(checkpoint: Int, target: String)
    }

    public let base: Scenario
    public let seed: UInt64
    public var parts: [Part]

    public init(base: Scenario, seed: UInt64, parts: [Part]) {
        self.base = base
        self.seed = seed
        self.parts = parts
    }

    /// The parts of the sequence's scenario.
    public init(_ sequence: FaultSequence) {
        let built = sequence.build()
        let parts = built.scenario.steps.indices.flatMap { index -> [Part] in
            switch built.scenario.steps[index].kind {
            case .settle: []
            case .expect(let expectations): expectations.map { .expect(checkpoint: built.checkpoints[index]!, target: $0.target) }
            case let kind: [.step(kind)]
            }
        }
        self.init(base: sequence.base, seed: sequence.seed, parts: parts)
    }

    public func build() -> BuiltScenario {
        var builder = StepBuilder(device: SimulatedDevice(base))
        var index = parts.startIndex
        while index < parts.endIndex {
            guard case .expect(let checkpoint, _) = parts[index] else {
                if case .step(let kind) = parts[index] { builder.take(kind) }
                index += 1
                continue
            }
            let targets = parts[index...].prefix { part in
                if case .expect(checkpoint, _) = part { true } else { false }
            }.compactMap { part in if case .expect(_, let target) = part { target } else { nil } }
            builder.checkpoint(Set(targets), id: checkpoint)
            index += targets.count
        }
        let steps = parts.filter(Self.isStep).count
        return builder.built(from: base, name: "Fault sequence \(FaultSequence.seedText(seed)) (\(steps) steps, shrunk)")
    }

    /// Without the expectations that did not fail in `run` (this sequence's scenario, or the
    /// fault sequence's it came from): the first thing to try when shrinking, since only a few
    /// of a fleet's many expectations fail.
    public func keepingExpectations(thatFailed failures: [SequenceFailure], in run: BuiltScenario) -> StepSequence {
        let failed = failures.compactMap { failure -> Part? in
            guard let step = failure.step, let checkpoint = run.checkpoints[step], let target = failure.target else { return nil }
            return .expect(checkpoint: checkpoint, target: target)
        }
        var kept = self
        kept.parts = parts.filter { part in
            if case .expect = part { failed.contains(part) } else { true }
        }
        return kept
    }

    /// Without the steps that concern apps (launches, writes, sign-ins, …) none of which is in `apps`.
    public func withoutSteps(concerningOnlyAppsOtherThan apps: Set<String>) -> StepSequence {
        var kept = self
        kept.parts = parts.filter { part in
            guard case .step(let kind) = part, !kind.apps.isEmpty else { return true }
            return !apps.isDisjoint(with: kind.apps)
        }
        return kept
    }

    /// Without the steps the models say are refused or cannot be taken: to the models they
    /// change nothing, so every prediction stays the same.
    public func withoutRefusedSteps() -> StepSequence {
        var device = SimulatedDevice(base)
        var kept = self
        kept.parts = parts.filter { part in
            guard case .step(let kind) = part else { return true }
            return device.apply(kind) == .done
        }
        return kept
    }

    /// Whether a part is a step (not an expectation).
    public static func isStep(_ part: Part) -> Bool {
        if case .step = part { true } else { false }
    }
}

extension StepKind {
    /// The apps a step acts on; none for the hub's and the device's steps.
    var apps: Set<String> {
        switch self {
        case .lifecycle(_, let apps): Set(apps)
        case .write(let app, _, _), .signin(let app, _, _), .signout(let app): [app]
        case .unlock(let app?, _, _): [app]
        default: []
        }
    }
}
