import Faults
import Scenario
import SharedDevice
import TestSupport
import Testing

/// Shrinking step by step: a sequence's scenario taken apart into single steps and
/// expectations, and built again with what the models now predict.
@Suite(.ownThread) struct StepSequenceTests {
    static let device = FaultSequence.defaultDevice

    /// Each `expect` step's targets and checks.
    static func expects(_ scenario: Scenario) -> [StepKind] {
        scenario.steps.map(\.kind).filter { if case .expect = $0 { true } else { false } }
    }

    static func targets(_ scenario: Scenario) -> [[ExpectTarget]] {
        scenario.steps.compactMap {
            if case .expect(let expectations) = $0.kind { expectations.map(\.target) } else { nil }
        }
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
    /// A refused step stays only where it moved an app (a check-in in the Hub app).
    @Test func withoutTheRefusedStepsEveryExpectationStaysTheSame() {
        for seed in UInt64(1)...100 {
            let steps = StepSequence(FaultSequence.random(base: Self.device, seed: seed, length: 40))
            let cut = steps.withoutRefusedSteps().build().scenario
            let refusedLeft = cut.steps.filter { $0.error != nil }.map(\.kind)
            #expect(refusedLeft.allSatisfy { $0.opensTheHub }, "seed \(seed): \(refusedLeft)")
            #expect(Self.expects(cut) == Self.expects(steps.build().scenario), "seed \(seed)")
        }
    }

    @Test func onlyTheExpectationsThatFailedAreKept() throws {
        let steps = StepSequence(FaultSequence.random(base: Self.device, seed: 3, length: 40))
        let built = steps.build()
        let last = built.scenario.steps.count - 1
        let kept = steps.keepingExpectations(
            thatFailed: [SequenceFailure(step: last, target: "notes", text: "notes.leaks: …")],
            in: built)
        #expect(Self.targets(kept.build().scenario) == [["notes"]])
        #expect(kept.parts.filter(StepSequence.isStep) == steps.parts.filter(StepSequence.isStep))
        // The end brings only the app still expected to the front.
        let end = Self.actionSteps(kept.build().scenario).dropFirst(kept.parts.count - 1)
        #expect(
            !end.isEmpty && end.allSatisfy { if case .lifecycle(_, ["notes"]) = $0 { true } else { false } }, "\(end)")
    }

    @Test func theStepsOfOtherAppsGoInOneCut() {
        let steps = StepSequence(FaultSequence.random(base: Self.device, seed: 5, length: 40))
        let cut = steps.withoutSteps(concerningOnlyAppsOtherThan: ["notes"])
        for case .step(let kind) in cut.parts {
            switch kind {
            case .lifecycle(_, let apps): #expect(apps == ["notes"])
            case .write(let app, _, _), .signin(let app, _, _), .signout(let app): #expect(app == "notes")
            default: break
            }
        }
        #expect(cut.parts.contains(.step(.lifecycle(.launch, apps: ["notes"]))))
        #expect(cut.parts.filter { !StepSequence.isStep($0) } == steps.parts.filter { !StepSequence.isStep($0) })
    }

    /// A keep-all app leaks; shrunk by actions, the sequence still ends by bringing every app
    /// to the front. Step by step, with only the leaking app's expectations, only it is.
    @Test func aLeakShrunkByActionsShrinksFurtherStepByStep() async throws {
        var device = Self.device
        device.apps[0].cleanup = .keepAll
        func leaks(_ built: BuiltScenario) -> Bool {
            built.failures.contains { $0.text.contains("holds readable records") }
        }
        let failing = try #require(
            (UInt64(1)...50).lazy.map { FaultSequence.random(base: device, seed: $0, length: 60) }
                .first { leaks($0.build()) })
        var byActions = failing
        byActions.actions = await Shrinking.shrink(failing.actions, budget: 500) { actions in
            leaks(FaultSequence(base: device, seed: failing.seed, actions: actions).build())
        }
        let built = byActions.build()
        let steps = StepSequence(byActions).keepingExpectations(
            thatFailed: [SequenceFailure(step: built.scenario.steps.count - 1, target: "mail", text: "mail.leaks: …")],
            in: built)
        let parts = await Shrinking.shrink(steps.parts, removable: StepSequence.isStep, budget: 500) { parts in
            leaks(steps.with(parts).build())
        }
        let shrunk = steps.with(parts).build()
        #expect(leaks(shrunk))
        #expect(
            Self.actionSteps(shrunk.scenario).count < Self.actionSteps(built.scenario).count, "\(shrunk.scenario.yaml)")
        #expect(Self.targets(shrunk.scenario).last == ["mail"], "\(shrunk.scenario.yaml)")
        let failure = try #require(shrunk.failures.first)
        let step = try #require(failure.step)
        #expect(failure.text.contains("mail") && shrunk.scenario.steps.indices.contains(step))
    }

    /// The runner does not wait for a check on a post, so a crash right after may cut it
    /// short; relaunched while the hub is down, the app cannot check: whom it acts for is not
    /// predicted (nor a write of its) until it checks with the hub up.
    @Test func aCrashThatMayCutACheckShortLeavesTheUserUnpredictedUntilTheNextCheck() {
        let opening: [StepKind] = [
            .enroll(user: "stage", password: nil), .checkout(user: "cou1", password: nil),
            .lifecycle(.launch, apps: ["mail"]),
        ]
        let raced: [StepKind] = [
            .checkin(), .lifecycle(.crash, apps: ["mail"]), .hub(.crash), .lifecycle(.launch, apps: ["mail"]),
            .write(app: "mail", kind: .plain, count: 1), .hub(.restart),
        ]
        let checked: [StepKind] = [.lifecycle(.background, apps: ["mail"]), .lifecycle(.foreground, apps: ["mail"])]
        func mailChecks(_ kinds: [StepKind]) -> [[ExpectField.Check]] {
            let actions = kinds.map(FaultSequence.Action.step) + [.checkpoint]
            let steps = FaultSequence(base: Self.device, seed: 1, actions: actions).build().scenario.steps
            #expect(
                !steps.contains { if case .write = $0.kind { true } else { false } },
                "a write by a user not known is left out")
            return steps.compactMap { step in
                guard case .expect(let expectations) = step.kind else { return nil }
                return expectations.first { $0.target == "mail" }?.fields.map(\.check)
            }
        }
        #expect(mailChecks(opening + raced).first == [.state(.foreground)])
        #expect(mailChecks(opening + raced + checked).first == [.state(.foreground), .user(nil), .leaks(0)])
        #expect(
            mailChecks(
                opening + [
                    .checkin(), .settle(nil), .lifecycle(.crash, apps: ["mail"]), .hub(.crash),
                    .lifecycle(.launch, apps: ["mail"]), .hub(.restart),
                ]
            ).first
                == [.state(.foreground), .user(nil), .leaks(0)], "settled before the crash: the check had finished")
    }

    @Test func shrinkingRemovesOnlyWhatMayGo() async {
        let shrunk = await Shrinking.shrink(Array(0..<40), removable: { $0 % 10 != 0 }, budget: 1000) {
            $0.contains(17)
        }
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

extension StepKind {
    /// A check-in or check-out in the Hub app, which takes the front whatever the hub answers.
    fileprivate var opensTheHub: Bool {
        switch self {
        case .checkin(.hub), .checkout(_, _, .hub): true
        default: false
        }
    }
}
