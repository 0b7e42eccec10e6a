import Scenario

/// How a scenario ran on a device, as the shrinker sees it. `interrupted`: a termination
/// signal cut the run short, which says nothing of the sequence.
public enum DeviceRun: Sendable {
    case held, failed([SequenceFailure]), environment(String), interrupted
}

/// A shrunk scenario and what failed in its last run.
public struct Reproduction: Sendable {
    public var built: BuiltScenario
    public var failures: [SequenceFailure]
}

extension FaultSequence {
    /// The models alone: fewer actions, then fewer steps, while an invariant still breaks;
    /// the expectations stay (each predicted again), so the file still checks the device.
    public func shrunkInDomain(budget: Int = 5000) async -> Reproduction {
        var shrunk = self
        shrunk.actions = await Shrinking.shrink(actions, budget: budget) { actions in
            !FaultSequence(base: base, seed: seed, actions: actions).build().failures.isEmpty
        }
        let steps = StepSequence(shrunk)
        let parts = await Shrinking.shrink(steps.parts, removable: StepSequence.isStep, budget: budget) { parts in
            !steps.with(parts).build().failures.isEmpty
        }
        let built = steps.with(parts).build()
        let byActions = shrunk.build()
        return built.failures.isEmpty
            ? Reproduction(built: byActions, failures: byActions.failures)
            : Reproduction(built: built, failures: built.failures)
    }
}

/// Shrinks a sequence that failed on a device, at most `limit` runs in all: first its actions
/// (ddmin, a third of the runs), then the single steps and expectations of what is left:
/// first three cuts of many at once (the expectations that held, the steps of the apps that
/// did not fail, the steps the models say change nothing), then ddmin. A candidate counts as
/// failing only if it fails as the sequence did (a failure of the same `signature`), not if
/// something else went wrong; one whose scenario already ran is not run again.
public struct DeviceShrinker {
    let limit: Int
    let run: (Scenario) async -> DeviceRun
    /// Told before each run: its number, and the candidate's number of steps.
    let willRun: (Int, Int) -> Void
    /// How many candidates ran.
    public private(set) var runs = 0
    private var signatures: Set<String> = []
    private var known: [String: [SequenceFailure]] = [:]
    private var last: Reproduction?

    public init(
        limit: Int, run: @escaping (Scenario) async -> DeviceRun, willRun: @escaping (Int, Int) -> Void = { _, _ in }
    ) {
        self.limit = limit
        self.run = run
        self.willRun = willRun
    }

    public mutating func shrink(_ sequence: FaultSequence, failing: BuiltScenario, with failures: [SequenceFailure])
        async -> Reproduction
    {
        signatures = Set(failures.map(\.signature))
        known[failing.scenario.yaml] = failures
        var shrunk = sequence
        shrunk.actions = await Shrinking.shrink(sequence.actions, budget: Int.max) { actions in
            await fails(
                FaultSequence(base: sequence.base, seed: sequence.seed, actions: actions).build(),
                within: (limit + 2) / 3)
        }
        let byActions = Reproduction(built: shrunk.build(), failures: known[shrunk.build().scenario.yaml] ?? failures)
        last = nil
        var steps = await cutMany(StepSequence(shrunk), failing: byActions)
        let cut = steps
        steps.parts = await Shrinking.shrink(steps.parts, budget: Int.max) { parts in
            await fails(cut.with(parts).build(), within: limit)
        }
        // No step-wise candidate failed: the file is the one shrunk by actions.
        return last ?? byActions
    }

    /// The cuts that remove many parts in one run, each kept if the scenario still fails.
    private mutating func cutMany(_ steps: StepSequence, failing: Reproduction) async -> StepSequence {
        let apps = Set(failing.failures.compactMap { if case .app(let name) = $0.target { name } else { nil } })
        let cuts: [(StepSequence) -> StepSequence] = [
            { $0.keepingExpectations(thatFailed: failing.failures, in: failing.built) },
            { apps.isEmpty ? $0 : $0.withoutSteps(concerningOnlyAppsOtherThan: apps) },
            { $0.withoutRefusedSteps() },
        ]
        var steps = steps
        for cut in cuts {
            let fewer = cut(steps)
            if await fails(fewer.build(), within: limit) { steps = fewer }
        }
        return steps
    }

    /// Whether `built` fails on a device as the sequence did (without running it again if it
    /// ran before); false once `runs` reached `within`.
    private mutating func fails(_ built: BuiltScenario, within: Int) async -> Bool {
        let text = built.scenario.yaml
        if known[text] == nil {
            // After a termination signal no candidate runs: the last one that failed stands.
            guard runs < within, !Task.isCancelled else { return false }
            runs += 1
            willRun(runs, built.scenario.steps.count)
            switch await run(built.scenario) {
            case .failed(let failures): known[text] = failures
            case .interrupted: return false
            case .held, .environment: known[text] = []
            }
        }
        let failures = known[text] ?? []
        guard failures.contains(where: { signatures.contains($0.signature) }) else { return false }
        last = Reproduction(built: built, failures: failures)
        return true
    }
}
