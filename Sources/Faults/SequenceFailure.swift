import RunResults
import Scenario

/// Something that failed in a sequence's scenario: at the index of the step where it showed
/// (nil: after the steps, such as a process left running), in the expectation of `target`
/// and its `field`th field when it is one.
public struct SequenceFailure: Equatable, Sendable {
    public var step: Int?
    public var target: ExpectTarget?
    public var field: Int?
    /// What failed, without the values: the same signature in a smaller scenario means it
    /// still fails as the sequence did (`notes notes.leaks`, not `expected 0, got 3`).
    public var signature: String
    /// What failed, whole, without where.
    public var text: String

    public init(step: Int?, target: ExpectTarget? = nil, field: Int? = nil, signature: String? = nil, text: String) {
        self.step = step
        self.target = target
        self.field = field
        self.signature = signature ?? text
        self.text = text
    }

    /// A runner's failure at the `index`th step of the run of `scenario`: its place in the
    /// scenario (the expectation and field its location is the key of) rather than the
    /// location, which is in this run's text, not in the file written in the end. Past the
    /// steps (the device's invariants) it belongs to none.
    public init(_ failure: StepFailure, at index: Int, in scenario: Scenario) {
        let step = scenario.steps.indices.contains(index) ? index : nil
        switch failure.reason {
        case .mismatch(let mismatch):
            let place = step.flatMap { Self.field(at: failure.location, in: scenario.steps[$0]) }
            self.init(
                step: step, target: place?.target, field: place?.field,
                signature: (place.map { "\($0.target) " } ?? "") + mismatch.subject, text: failure.message)
        case .stepError:
            let title = step.map { scenario.steps[$0].title } ?? "a step"
            self.init(step: step, signature: "error in \(title)", text: failure.message)
        case .invariant(let rule, let process, _):
            self.init(step: step, signature: "\(process): \(rule.rawValue)", text: failure.message)
        }
    }

    /// The expectation's target and the field's position in it, of the field whose key is at
    /// `location` in an `expect` step; the first, when a fleet made one expectation per member.
    private static func field(at location: Location, in step: Step) -> (target: ExpectTarget, field: Int)? {
        guard case .expect(let expectations) = step.kind else { return nil }
        for expectation in expectations {
            if let field = expectation.fields.firstIndex(where: { $0.location == location }) {
                return (expectation.target, field)
            }
        }
        return nil
    }

    /// Every failure of a run, by the step it showed at.
    public static func all(in result: ScenarioResult) -> [SequenceFailure] {
        result.steps.indices.flatMap { index in
            result.steps[index].failures.map { SequenceFailure($0, at: index, in: result.scenario) }
        }
    }

    /// `FILE:LINE:COL: what failed`: at the failed expectation's field, else the step; past
    /// the steps, at the last one (as the runner reports the device's invariants).
    public func located(in scenario: Scenario) -> String {
        let failed = step.flatMap { scenario.steps.indices.contains($0) ? scenario.steps[$0] : nil }
        guard let failed = failed ?? scenario.steps.last else { return "\(scenario.file): \(text)" }
        var location = failed.location
        if case .expect(let expectations) = failed.kind,
            let expectation = expectations.first(where: { $0.target == target })
        {
            location =
                field.flatMap { expectation.fields.indices.contains($0) ? expectation.fields[$0].location : nil }
                ?? expectation.location
        }
        return "\(location): \(text)"
    }
}
