import Scenario

/// A fault sequence's scenario taken apart step by step, for shrinking finer than whole
/// actions: each step it takes, and each expectation (the hub's or one app's) at each
/// checkpoint. The settles are not parts: they are put back wherever a step needs a settled
/// device; nor is the end that brings the apps to the front before the last checkpoint: it is
/// done again for the apps that checkpoint still expects. Built again, every step gets the
/// error the models now predict (a step they can no longer take is left out) and every
/// expectation what they now predict, so a shrunk scenario says nothing the models do not.
public struct StepSequence: Sendable {
    public enum Part: Equatable, Sendable {
        case step(StepKind)
        /// The expectation of `target` (an app or `hub`) at the `checkpoint`th checkpoint.
        case expect(checkpoint: Int, target: ExpectTarget)
    }

    public let base: Scenario
    public let seed: UInt64
    public var parts: [Part]
    /// The checkpoint that ends the sequence, before which its apps come to the front.
    public let finalCheckpoint: Int?

    public init(base: Scenario, seed: UInt64, parts: [Part], finalCheckpoint: Int?) {
        self.base = base
        self.seed = seed
        self.parts = parts
        self.finalCheckpoint = finalCheckpoint
    }

    /// The parts of the sequence's scenario.
    public init(_ sequence: FaultSequence) {
        let built = sequence.build()
        let steps = built.scenario.steps
        let parts = steps.indices.flatMap { index -> [Part] in
            switch steps[index].kind {
            case .settle: []
            case .expect(let expectations):
                expectations.map { .expect(checkpoint: built.checkpoints[index]!, target: $0.target) }
            case _ where index >= built.finishStart ?? steps.count: []
            case let kind: [.step(kind)]
            }
        }
        self.init(
            base: sequence.base, seed: sequence.seed, parts: parts,
            finalCheckpoint: built.finishStart.flatMap { _ in built.checkpoints[steps.count - 1] })
    }

    /// The same sequence with other parts.
    public func with(_ parts: [Part]) -> StepSequence {
        var other = self
        other.parts = parts
        return other
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
            if checkpoint == finalCheckpoint {
                builder.finish(only: Set(targets), id: checkpoint)
            } else {
                builder.checkpoint(Set(targets), id: checkpoint)
            }
            index += targets.count
        }
        let steps = parts.filter(Self.isStep).count
        return builder.built(
            from: base, name: "Fault sequence \(FaultSequence.seedText(seed)) (\(steps) steps, shrunk)")
    }

    /// Without the expectations that did not fail in `run` (this sequence's scenario, or the
    /// fault sequence's it came from): the first thing to try when shrinking, since only a few
    /// of a fleet's many expectations fail.
    public func keepingExpectations(thatFailed failures: [SequenceFailure], in run: BuiltScenario) -> StepSequence {
        let failed = failures.compactMap { failure -> Part? in
            guard let step = failure.step, let checkpoint = run.checkpoints[step], let target = failure.target else {
                return nil
            }
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

    /// Without the steps the models say are refused or cannot be taken and that moved no app:
    /// to the models they change nothing, so every prediction stays the same. (A check-in the
    /// Hub refused still brought the Hub app to the front.)
    public func withoutRefusedSteps() -> StepSequence {
        var device = SimulatedDevice(base)
        var kept = self
        kept.parts = parts.filter { part in
            guard case .step(let kind) = part else { return true }
            let before = device.fleet
            return device.apply(kind) == .done || device.fleet != before
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
