import Faults
import RunResults
import Scenario
import SharedDevice
import TestSupport
import Testing

/// Shrinking and failure attribution without a device: the run is a function of the
/// scenario, so what the shrinker keeps and how many runs it spends can be checked exactly.
@Suite(.ownThread) struct DeviceShrinkerTests {
    static let device = FaultSequence.defaultDevice

    /// The writes into `app` among the scenario's steps.
    static func writes(into app: String, in scenario: Scenario) -> Int {
        scenario.steps.filter { if case .write(app, _, _) = $0.kind { true } else { false } }.count
    }

    static func actionSteps(_ scenario: Scenario) -> Int {
        scenario.steps.filter {
            switch $0.kind {
            case .settle, .expect: false
            default: true
            }
        }.count
    }

    /// A random sequence that writes into `notes` at least once.
    static func sequenceWritingNotes() throws -> FaultSequence {
        let seeds = UInt64(1)...200
        let seed = try #require(
            seeds.first {
                writes(into: "notes", in: FaultSequence.random(base: device, seed: $0, length: 40).build().scenario) > 0
            })
        return FaultSequence.random(base: device, seed: seed, length: 40)
    }

    /// A device on which any write into `notes` leaks: the count it reports changes with the
    /// scenario, the failure's signature does not.
    static func leaksAfterNotesWrites(_ scenario: Scenario) -> DeviceRun {
        let count = writes(into: "notes", in: scenario)
        guard count > 0 else { return .held }
        return .failed([
            SequenceFailure(
                step: scenario.steps.count - 1, target: .app("notes"), field: 1, signature: "notes notes.leaks",
                text: "notes.leaks: expected 0, got \(count)")
        ])
    }

    @Test func aFailureShrinksToTheStepsThatCauseItWithinItsRuns() async throws {
        let sequence = try Self.sequenceWritingNotes()
        let built = sequence.build()
        guard case .failed(let failures) = Self.leaksAfterNotesWrites(built.scenario) else {
            Issue.record("the sequence does not fail")
            return
        }
        var runs = 0
        var shrinker = DeviceShrinker(limit: 60) { scenario in
            runs += 1
            return Self.leaksAfterNotesWrites(scenario)
        }
        let shrunk = await shrinker.shrink(sequence, failing: built, with: failures)
        #expect(runs <= 60 && runs == shrinker.runs)
        #expect(Self.writes(into: "notes", in: shrunk.built.scenario) >= 1)
        #expect(Self.actionSteps(shrunk.built.scenario) < Self.actionSteps(built.scenario) / 4)
        #expect(shrunk.failures.allSatisfy { $0.signature == "notes notes.leaks" })
    }

    /// A candidate that fails otherwise than the sequence did is not a reproduction: nothing
    /// is cut, and the file written is the sequence's own.
    @Test func aCandidateFailingOtherwiseIsNotKept() async throws {
        let sequence = try Self.sequenceWritingNotes()
        let built = sequence.build()
        let original = SequenceFailure(step: 0, signature: "error in checkout: cou1", text: "checkout failed")
        var shrinker = DeviceShrinker(limit: 20) { scenario in
            .failed([SequenceFailure(step: 0, signature: "mail mail.state", text: "mail.state: expected foreground")])
        }
        let shrunk = await shrinker.shrink(sequence, failing: built, with: [original])
        #expect(shrunk.built.scenario.yaml == built.scenario.yaml)
        #expect(shrunk.failures == [original])
        #expect(shrinker.runs <= 20)
    }

    static let yaml = """
        name: attribution
        apps:
          - {name: mail, sdk: msal}
          - {name: notes, sdk: msal}
        steps:
          - checkout: cou1
          - expect:
              hub: {user: cou1}
              notes: {state: not-running, leaks: 0}
        """

    /// A runner's failure is attributed by its place in the run's scenario (step, expectation,
    /// field), not by its text; its signature leaves out the values that change from run to
    /// run, and it is located again in the file written in the end.
    @Test func aRunnersFailureIsAttributedByItsPlaceNotItsText() throws {
        let scenario = try Scenario.parse(Self.yaml, file: "a.yaml")
        let ran = try Scenario.parse(Self.yaml, file: "run.yaml")
        let mismatch = Mismatch(
            apps: ["notes"], name: "leaks", expected: "0", got: "3",
            found: "cou1 plain ×3 (documents/cou1/plain-1-3.txt)")
        guard case .expect(let expectations) = ran.steps[1].kind else {
            Issue.record("the second step is not an expectation")
            return
        }
        let failure = StepFailure(location: expectations[1].fields[1].location, reason: .mismatch(mismatch))
        let attributed = SequenceFailure(failure, at: 1, in: ran)
        #expect(attributed.step == 1 && attributed.target == .app("notes") && attributed.field == 1)
        #expect(attributed.signature == "notes notes.leaks")
        #expect(attributed.located(in: scenario) == "a.yaml:9:35: " + mismatch.message)

        let error = StepFailure(location: scenario.steps[0].location, reason: .stepError("the hub did not answer"))
        #expect(SequenceFailure(error, at: 0, in: scenario).signature == "error in checkout: cou1")
        let invariant = StepFailure(
            location: scenario.steps[1].location,
            reason: .invariant(
                .oneCallbackOfAKindPerCheck, process: "mail", detail: "mail got a second wipe in one check"))
        let past = SequenceFailure(invariant, at: 2, in: scenario)
        #expect(
            past.step == nil
                && past.located(in: scenario) == "\(scenario.steps[1].location): mail got a second wipe in one check")
    }
}
