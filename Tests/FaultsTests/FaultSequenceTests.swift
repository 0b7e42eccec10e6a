import Faults
import Scenario
import SharedDevice
import TestSupport
import Testing

/// Seeded fault sequences over the pure domain: thousands per second, every invariant checked
/// after every step.
@Suite(.ownThread) struct FaultSequenceTests {
    static let device = FaultSequence.defaultDevice

    @Test func thousandsOfSequencesKeepEveryInvariant() {
        var steps = 0
        for seed in UInt64(1)...2000 {
            let (scenario, violations) = FaultSequence.random(base: Self.device, seed: seed, length: 60).scenario()
            #expect(violations.isEmpty, "seed \(FaultSequence.seedText(seed)): \(violations)")
            steps += scenario.steps.count
        }
        #expect(steps > 2000 * 60)
    }

    /// With Authenticator as MSAL's broker, MSAL's account and the Hub's session part ways and
    /// each app follows its own SDK's; the invariants hold all the same.
    @Test func sequencesUnderAuthenticatorKeepEveryInvariant() {
        var device = Self.device
        device.device.policy.broker = .authenticator
        var parted = 0
        for seed in UInt64(1)...500 {
            let sequence = FaultSequence.random(base: device, seed: seed, length: 60)
            let (_, violations) = sequence.scenario()
            #expect(violations.isEmpty, "seed \(FaultSequence.seedText(seed)): \(violations)")
            var simulated = SimulatedDevice(device)
            for case .step(let kind) in sequence.actions { _ = simulated.apply(kind) }
            if simulated.hub.currentAccount != simulated.hub.session.checkedOutUser { parted += 1 }
        }
        #expect(parted > 0, "some sequence ends with MSAL's account apart from the Hub's worker")
    }

    /// Whatever a team's scenario declares: here no MSAL app and no user who may check out
    /// but the staging user.
    @Test func aSparseDeviceStillGetsSequences() {
        var device = Self.device
        device.apps = device.apps.filter { $0.sdk == .ws1 }
        device.users = device.users.filter { $0.user.role == .staging }
        for seed in UInt64(1)...200 {
            let sequence = FaultSequence.random(base: device, seed: seed, length: 30)
            #expect(sequence.actions.count > 30 && sequence.scenario().violations.isEmpty, "seed \(seed)")
        }
    }

    @Test func aSeedGivesTheSameSequenceEveryTime() {
        let once = FaultSequence.random(base: Self.device, seed: 42, length: 80)
        #expect(once.actions == FaultSequence.random(base: Self.device, seed: 42, length: 80).actions)
        #expect(once.actions != FaultSequence.random(base: Self.device, seed: 43, length: 80).actions)
    }

    @Test func everyKindOfFaultIsInjected() {
        var faults: [String: Int] = [:]
        for seed in UInt64(1)...200 {
            faults.merge(FaultSequence.random(base: Self.device, seed: seed, length: 60).faults, uniquingKeysWith: +)
        }
        let kinds = [
            "app crashes", "app terminations", "suspensions", "hub crashes", "hub restarts", "offline periods",
            "spoofed posts", "session changes",
        ]
        #expect(kinds.allSatisfy { faults[$0, default: 0] > 50 }, "\(faults)")
    }

    /// The real device must settle before a step that could race checks still under way.
    @Test func aStepThatCouldRaceComesAfterASettle() {
        for seed in UInt64(1)...200 {
            let steps = FaultSequence.random(base: Self.device, seed: seed, length: 60).scenario().scenario.steps
            for (index, step) in steps.enumerated() {
                switch step.kind {
                case .checkout, .removeAccount, .hub(.crash), .lifecycle(.suspend, _), .lifecycle(.background, _):
                    guard case .settle = steps[index - 1].kind else {
                        Issue.record("seed \(seed): \(step.title) follows \(steps[index - 1].title)")
                        return
                    }
                default: break
                }
            }
        }
    }

    @Test func theSequenceEndsWithEveryAppAgreeingWithTheHub() throws {
        let scenario = FaultSequence.random(base: Self.device, seed: 7, length: 40).scenario().scenario
        guard case .expect(let last) = try #require(scenario.steps.last).kind else {
            Issue.record("the last step is not an expect")
            return
        }
        #expect(Set(last.map(\.target)) == Set([.hub] + Self.device.apps.map { .app($0.name) }))
        #expect(last.filter { $0.target != "hub" }.allSatisfy { $0.fields.contains { $0.check == .leaks(0) } })
    }

    /// A keep-all app (broken on purpose) leaks; the sequence that shows it shrinks to a few steps.
    @Test func aLeakIsFoundAndShrunkToAFewActions() async throws {
        var device = Self.device
        device.apps[0].cleanup = .keepAll
        let failing = try #require(
            (UInt64(1)...50).lazy.map { FaultSequence.random(base: device, seed: $0, length: 60) }
                .first { !$0.scenario().violations.isEmpty })
        let shrunk = await Shrinking.shrink(failing.actions, budget: 500) { actions in
            !FaultSequence(base: device, seed: failing.seed, actions: actions).scenario().violations.isEmpty
        }
        let minimal = FaultSequence(base: device, seed: failing.seed, actions: shrunk).scenario()
        #expect(!minimal.violations.isEmpty)
        #expect(shrunk.count <= 6 && shrunk.count < failing.actions.count, "\(shrunk)")
        #expect(minimal.violations.allSatisfy { $0.contains("mail") }, "\(minimal.violations)")
    }

    @Test func shrinkingFindsTheSmallestFailingSubList() async {
        let shrunk = await Shrinking.shrink(Array(0..<100), budget: 1000) { $0.contains(13) && $0.contains(71) }
        #expect(shrunk == [13, 71])
        let bounded = await Shrinking.shrink(Array(0..<100), budget: 3) { $0.contains(13) }
        #expect(bounded.count >= 25, "three tries remove at most three chunks")
    }
}
