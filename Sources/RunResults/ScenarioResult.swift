import DeviceContract
import Scenario

/// A scenario's outcome.
public struct ScenarioResult: Sendable {
    public init(
        scenario: Scenario, steps: [StepResult], timings: [SessionChangeTiming], environmentFailure: String? = nil
    ) {
        self.scenario = scenario
        self.steps = steps
        self.timings = timings
        self.environmentFailure = environmentFailure
    }

    public var scenario: Scenario
    public var steps: [StepResult]
    public var timings: [SessionChangeTiming]
    /// Every process's trace, merged in time order.
    public var events: [TraceEvent] = []
    /// The device attacker's scan at the end, with the hub's user then.
    public var scan = ScanSummary()
    /// The device could not start or broke (exit 3), rather than an expectation failing.
    public var environmentFailure: String?
    /// A termination signal cut the run short (its task was cancelled): it neither passed nor
    /// failed, and what the cancellation broke is not reported as a failure.
    public var interrupted = false
    public var passed: Bool { environmentFailure == nil && !interrupted && steps.allSatisfy(\.passed) }

    /// The device did not start: it is broken, unless the run was cancelled meanwhile.
    public mutating func deviceDidNotStart(_ error: any Error) {
        if Task.isCancelled { interrupted = true } else { environmentFailure = "\(error)" }
    }
}

/// One step's outcome, as the terminal and the reports show it.
public struct StepResult: Sendable {
    public init(location: Location, title: String, failures: [StepFailure], notes: [String] = []) {
        self.location = location
        self.title = title
        self.failures = failures
        self.notes = notes
    }

    public var location: Location
    public var title: String
    /// Empty when the step held.
    public var failures: [StepFailure]
    /// What surfaced during the step without failing it: a cleanup that failed, a launch that
    /// only brought a running app to the front.
    public var notes: [String]
    public var passed: Bool { failures.isEmpty }
}

/// One thing that did not hold in a step, kept as a value until it is printed:
/// `FILE:LINE:COL: notes.leaks: expected 0, got 3: cou1 plain ×3 (…)`.
public struct StepFailure: Sendable, Hashable, CustomStringConvertible {
    public enum Reason: Sendable, Hashable {
        /// An expectation's field that did not hold.
        case mismatch(Mismatch)
        /// The step could not be carried out; its error as said.
        case stepError(String)
        /// A rule every run keeps, broken by a process.
        case invariant(DeviceRule, process: String, detail: String)
    }

    /// The field of an expectation that failed, else the step.
    public var location: Location
    public var reason: Reason

    public init(location: Location, reason: Reason) {
        self.location = location
        self.reason = reason
    }

    /// What failed, without where.
    public var message: String {
        switch reason {
        case .mismatch(let mismatch): mismatch.message
        case .stepError(let error): error
        case .invariant(_, _, let detail): detail
        }
    }

    public var description: String { "\(location): \(message)" }
}

/// An expectation's field that did not hold, for the hub or for apps that failed it alike.
/// Which field it is, is where it is (`StepFailure.location`, the field's key in the file).
public struct Mismatch: Sendable, Hashable {
    /// The apps that failed the field alike; empty for the hub.
    public var apps: [String]
    /// `leaks`, `retained.common`, `state`.
    public var name: String
    public var expected: String
    public var got: String
    /// What the scanner found, when a count of leaks or retained data is off.
    public var found: String?

    public init(apps: [String], name: String, expected: String, got: String, found: String? = nil) {
        self.apps = apps
        self.name = name
        self.expected = expected
        self.got = got
        self.found = found
    }

    /// `hub.state`, `notes.leaks` or `fleet1–fleet20 (20 apps).leaks`.
    public var subject: String { (apps.isEmpty ? ExpectTarget.hub.description : AppNames.who(apps)) + "." + name }

    /// `notes.leaks: expected 0, got 3: cou1 plain ×3 (…)`.
    public var message: String {
        "\(subject): expected \(expected), got \(got)" + (found.map { ": \($0)" } ?? "")
    }
}

/// What must hold in every run, whatever its steps.
public enum DeviceRule: String, Sendable, Hashable {
    /// The hub's generation never goes back.
    case generationNeverGoesBack = "generation never goes back"
    /// No check gives two callbacks of one kind.
    case oneCallbackOfAKindPerCheck = "one callback of a kind per check"
    /// No app writes outside its container.
    case writesStayInContainer = "writes stay in the container"
}
