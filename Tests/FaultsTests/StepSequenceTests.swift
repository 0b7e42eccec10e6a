import Faults
import Scenario
import SharedDevice
import Testing

/// Shrinking step by step: a sequence's scenario taken apart into single steps and
/// expectations, and built again with what the models now predict.
@Suite struct StepSequenceTests {
    static let device = FaultSequence.defaultDevice

    /// Each `expect` step's targets and checks.
    static func expects(_ scenario: Scenario) -> [StepKind] {
        scenario.steps.map(\.kind).filter { if case .expect = $0 { true } else { false } }
    }

    static func targets(_ scenario: Scenario) -> [[String]] {
        scenario.steps.compactMap { if case .expect(let expectations) = $0.kind { expectations.map(\.target) } else { nil } }
    }

    static func actionSteps(_ scenario: Scenario) -> [StepKind] {
        scenario.steps.map(\.kind).filter { kind in
            switch kind {
            case .settle, .expect: false
            default: true
            }
        }
    }

    @Test func takenApartASequenceBuildsTheSameSteps() {
        for seed in UInt64(1)...200 {
            let sequence = FaultSequence.random(base: Self.device, seed: seed, length: 40)
            let original = sequence.build().scenario
            let rebuilt = StepSequence(sequence).build()
            #expect(rebuilt.failures.isEmpty, "seed \(seed)")
            #expect(rebuilt.scenario.steps.map(\.error) == original.steps.map(\.error), "seed \(seed)")
            #expect(Self.actionSteps(rebuilt.scenario) == Self.actionSteps(original), "seed \(seed)")
        }
    }

    /// Whatever is removed, the models still agree with themselves: every step gets the error
    /// they now predict, every expectation what they now believe.
    @Test func removingAnyPartsLeavesAScenarioTheModelsAgreeWith() {
        var generator = SeededGenerator(state: 7)
        for seed in UInt64(1)...300 {
            var steps = StepSequence(FaultSequence.random(base: Self.device, seed: seed, length: 40))
            steps.parts = steps.parts.filter { _ in Int.random(in: 0..<3, using: &generator) > 0 }
            let built = steps.build()
            #expect(built.failures.isEmpty, "seed \(seed): \(built.failures)")
            for (index, step) in built.scenario.steps.enumerated() where step.kind.needsSettledDeviceInTests {
                guard index > 0 else { continue }  // nothing ran before the first step
                guard case .settle = built.scenario.steps[index - 1].kind else {
                    Issue.record("seed \(seed): \(step.title) follows no settle")
                    break
                }
            }
        }
    }

    /// The steps the models say change nothing go in one cut, and the expectations stay the same.
    @Test func withoutTheRefusedStepsEveryExpectationStaysTheSame() {
        for seed in UInt64(1)...100 {
            let steps = StepSequence(FaultSequence.random(base: Self.device, seed: seed, length: 40))
            let cut = steps.withoutRefusedSteps().build().scenario
            #expect(cut.steps.allSatisfy { $0.error == nil }, "seed \(seed)")
            #expect(Self.expects(cut) == Self.expects(steps.build().scenario), "seed \(seed)")
        }
    }

    @Test func onlyTheExpectationsThatFailedAreKept() throws {
        let steps = StepSequence(FaultSequence.random(base: Self.device, seed: 3, length: 40))
        let built = steps.build()
        let last = built.scenario.steps.count - 1
        let kept = steps.keepingExpectations(thatFailed: [SequenceFailure(step: last, target: "notes", text: "notes.leaks: …")],
                                             in: built).build().scenario
        #expect(Self.targets(kept) == [["notes"]])
        #expect(Self.actionSteps(kept) == Self.actionSteps(built.scenario))
    }

    @Test func theStepsOfOtherAppsGoInOneCut() {
        let steps = StepSequence(FaultSequence.random(base: Self.device, seed: 5, length: 40))
        let cut = steps.withoutSteps(concerningOnlyAppsOtherThan: ["notes"]).build().scenario
        for kind in Self.actionSteps(cut) {
            switch kind {
            case .lifecycle(_, let apps): #expect(apps == ["notes"])
            case .write(let app, _, _), .signin(let app, _, _), .signout(let app): #expect(app == "notes")
            default: break
            }
        }
        #expect(Self.actionSteps(cut).contains(.lifecycle(.launch, apps: ["notes"])))
    }

    /// A keep-all app leaks; after the actions, the single steps are shrunk (the final launches
    /// and foregrounds of the other apps among them): fewer steps, the same leak.
    @Test func aLeakShrunkByActionsShrinksFurtherStepByStep() async throws {
        var device = Self.device
        device.apps[0].cleanup = .keepAll
        func leaks(_ built: BuiltScenario) -> Bool { built.failures.contains { $0.text.contains("holds readable records") } }
        let failing = try #require((UInt64(1)...50).lazy.map { FaultSequence.random(base: device, seed: $0, length: 60) }
            .first { leaks($0.build()) })
        var byActions = failing
        byActions.actions = await Shrinking.shrink(failing.actions, budget: 500) { actions in
            leaks(FaultSequence(base: device, seed: failing.seed, actions: actions).build())
        }
        var steps = StepSequence(byActions)
        steps.parts = await Shrinking.shrink(steps.parts, removable: StepSequence.isStep, budget: 500) { parts in
            leaks(StepSequence(base: device, seed: failing.seed, parts: parts).build())
        }
        let actionSteps = Self.actionSteps(byActions.build().scenario).count
        let built = steps.build()
        #expect(Self.actionSteps(built.scenario).count < actionSteps, "\(built.scenario.yaml)")
        #expect(Self.actionSteps(built.scenario).count <= 5, "\(built.scenario.yaml)")
        let failure = try #require(built.failures.first)
        let step = try #require(failure.step)
        #expect(failure.text.contains("mail") && built.scenario.steps.indices.contains(step))
    }

    @Test func shrinkingRemovesOnlyWhatMayGo() async {
        let shrunk = await Shrinking.shrink(Array(0..<40), removable: { $0 % 10 != 0 }, budget: 1000) { $0.contains(17) }
        #expect(shrunk == [0, 10, 17, 20, 30])
    }
}

extension StepKind {
    /// The steps `FaultSequence` settles the device before, as its tests list them.
    var needsSettledDeviceInTests: Bool {
        switch self {
        case .checkout, .removeAccount, .hub(.crash), .lifecycle(.suspend, _), .lifecycle(.background, _): true
        default: false
        }
    }
}
