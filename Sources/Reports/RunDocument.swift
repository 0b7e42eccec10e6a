import DeviceContract
import DeviceProcesses
import Foundation
import LeakScan
import RunResults
import Scenario
import SharedDevice

/// A run's results as data (Docs/outputs.md): the `--json` document and a report folder's
/// `results.json`. Every other output is drawn from it, with each scenario's trace, so that
/// `sdlab report merge` draws them again from report folders, and `sdlab compare` compares two.
public struct RunDocument: Codable, Sendable {
    /// The document's shape: 2 since a step's failures are objects (a mismatch kept as its
    /// parts); 1, the lines as printed, has no `version` key.
    public private(set) var version = RunDocument.currentVersion
    public var passed: Bool
    /// In the order the scenarios were given (`report merge`: by file).
    public var scenarios: [ScenarioReport]

    public static let currentVersion = 2

    public init(_ scenarios: [ScenarioReport]) {
        self.scenarios = scenarios
        passed = scenarios.allSatisfy(\.passed)
    }

    /// Reads this version and version 1 (whose failures are lines); held in memory as this
    /// version, so that a document written again has this version's shape.
    public init(from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: CodingKeys.self)
        let version = try object.decodeIfPresent(Int.self, forKey: .version) ?? 1
        guard (1...Self.currentVersion).contains(version) else { throw UnreadableVersion(version: version) }
        passed = try object.decode(Bool.self, forKey: .passed)
        scenarios = try object.decode([ScenarioReport].self, forKey: .scenarios)
    }

    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    public static func decoded(from data: Data) throws -> RunDocument {
        try JSONDecoder().decode(RunDocument.self, from: data)
    }

    /// The document in a file; an error that names the file and why it could not be read (the
    /// system's reason, or where the JSON is not a run's).
    public static func read(_ path: String) throws(ReportFileFailure) -> RunDocument {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ReportFileFailure(
                description: "cannot read \(path): \(whyUnreadable(path) ?? error.localizedDescription)")
        }
        let document: RunDocument
        do {
            document = try decoded(from: data)
        } catch let unreadable as UnreadableVersion {
            throw ReportFileFailure(
                description:
                    "\(path) is a run document of version \(unreadable.version); this sdlab reads versions 1 to "
                    + "\(currentVersion)")
        } catch {
            throw ReportFileFailure(description: "\(path) is not the JSON of `sdlab run --json`: \(error)")
        }
        if let problem = document.outOfBounds {
            throw ReportFileFailure(description: "\(path) is not a run's document: \(problem)")
        }
        return document
    }

    /// The longest time a document may hold, in ms (a run of a month); times are never negative.
    static let longestMilliseconds = 30 * 24 * 3_600_000.0
    /// The latest commit time a document may hold, in ns: its pairs' times add to it.
    static let latestT0 = UInt64(1) << 62

    /// The first number no run could have written (a document made by hand, or damaged),
    /// named by scenario and field; nil when every number is within bounds.
    var outOfBounds: String? {
        for scenario in scenarios {
            let place = "scenario \(scenario.file)"
            if !Self.isTime(scenario.seconds * 1000) {
                return "\(place): duration_s \(scenario.seconds) is out of bounds"
            }
            for (index, pair) in scenario.pairs.enumerated() {
                let field = "\(place), pair \(index + 1)"
                if pair.t0 > Self.latestT0 { return "\(field): t0 \(pair.t0) is out of bounds" }
                for (name, value) in [("notified_ms", pair.notifiedMS), ("exposure_ms", pair.exposureMS)] {
                    if let value, !Self.isTime(value) { return "\(field): \(name) \(value) is out of bounds" }
                }
            }
            for row in scenario.timing {
                for (name, value) in [("notified_ms", row.notifiedMS), ("exposure_ms", row.exposureMS)] {
                    guard let value else { continue }
                    for number in [value.p50, value.p90, value.p99, value.max] where !Self.isTime(number) {
                        return "\(place), timing \(row.model) \(row.mechanism): \(name) \(number) is out of bounds"
                    }
                }
            }
        }
        return nil
    }

    private static func isTime(_ milliseconds: Double) -> Bool {
        milliseconds.isFinite && milliseconds >= 0 && milliseconds <= longestMilliseconds
    }
}

/// The system's reason a file cannot be opened for reading, if it has one.
private func whyUnreadable(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return errorText() }
    defer { close(fd) }
    var info = stat()
    return fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR ? "it is a folder" : nil
}

/// A document of a version this sdlab does not know (a later one's).
struct UnreadableVersion: Error {
    let version: Int
}

/// A run's file that cannot be read or written, and why.
public struct ReportFileFailure: Error, CustomStringConvertible {
    public let description: String
}

/// One scenario of a run: with `--repeat K`, its K runs in one. Steps, apps, scan and trace
/// are the shown run's: the first that failed, else the first; `pairs` holds every run's.
public struct ScenarioReport: Codable, Sendable {
    public var name: String
    public var file: String
    public var tags: [String]
    /// Every run passed.
    public var passed: Bool
    @Nullable public var environmentFailure: String?
    public var runs: Int
    public var failedRuns: Int
    /// Which run steps, apps, scan and trace are of (1-based).
    public var shownRun: Int
    /// The shown run's wall time.
    public var seconds: Double
    public var apps: [App]
    public var steps: [Step]
    /// Per model and mechanism, over every run's pairs.
    public var timing: [Row]
    /// Every (session change, app) pair of every run.
    public var pairs: [Pair]
    /// The shown run's open pairs.
    public var open: [Open]
    public var scan: Scan
    /// The shown run's merged trace: in `trace.jsonl`, not in the JSON.
    public var events: [TraceEvent] = []

    enum CodingKeys: String, CodingKey {
        case name, file, tags, passed, runs, apps, steps, timing, pairs, open, scan
        case environmentFailure = "environment_failure", failedRuns = "failed_runs", shownRun = "shown_run"
        case seconds = "duration_s"
    }

    public struct App: Codable, Sendable {
        public var name: String
        public var sdk: String
        public var background: Bool
        /// The cleanup it ran, as its trace says (`wipe-all`, `hook ./clean.sh (keeps common)`); nil: never launched.
        @Nullable public var cleanup: String?
        /// Its SDK's callbacks in the shown run, in order (`current-account(cou1,none)`).
        public var callbacks: [String]
    }

    public struct Step: Codable, Sendable {
        public var location: String
        public var step: String
        public var passed: Bool
        public var failures: [Failure]
        public var notes: [String]
    }

    /// What did not hold in a step (`StepFailure`): where, the message as printed, and for a
    /// mismatch or an invariant its parts.
    public struct Failure: Codable, Sendable, CustomStringConvertible {
        public enum Kind: String, Codable, Sendable {
            case mismatch, invariant
            case stepError = "step-error"
        }

        /// `FILE:LINE:COL`; empty for a failure read from a version 1 document, its location
        /// then in `message`.
        public var location: String
        /// Nil for a failure read from a version 1 document.
        public var kind: Kind?
        public var message: String
        @Nullable public var mismatch: Mismatch?
        @Nullable public var invariant: Invariant?

        /// The line as the console prints it.
        public var description: String { location.isEmpty ? message : "\(location): \(message)" }
    }

    /// `Mismatch`: the field's apps (none for the hub), name, and the values expected and got.
    public struct Mismatch: Codable, Sendable {
        public var apps: [String]
        public var name: String
        public var expected: String
        public var got: String
        @Nullable public var found: String?
    }

    public struct Invariant: Codable, Sendable {
        public var rule: String
        public var process: String
    }

    public struct Row: Codable, Sendable {
        public var model: String
        public var mechanism: String
        public var count: Int
        public var open: Int
        @Nullable public var notifiedMS: Percentiles?
        @Nullable public var exposureMS: Percentiles?

        enum CodingKeys: String, CodingKey {
            case model, mechanism, count, open
            case notifiedMS = "notified_ms", exposureMS = "exposure_ms"
        }
    }

    /// A (session change, app) pair, as `timing.csv` has it, with the run it came from and the
    /// commit's time (so a report can draw it again).
    public struct Pair: Codable, Sendable {
        /// 1-based.
        public var run: Int
        public var generation: UInt64
        public var app: String
        public var sdk: String
        public var mechanism: String
        /// The hub's commit, `CLOCK_MONOTONIC` ns.
        public var t0: UInt64
        @Nullable public var notifiedMS: Double?
        /// `cou1/plain,…`; empty: nothing exposed.
        public var held: String
        @Nullable public var exposureMS: Double?
        @Nullable public var open: String?

        enum CodingKeys: String, CodingKey {
            case run, generation, app, sdk, mechanism, t0, held, open
            case notifiedMS = "notified_ms", exposureMS = "exposure_ms"
        }
    }

    public struct Open: Codable, Sendable {
        public var generation: UInt64
        public var app: String
        public var held: String
        public var mechanism: String
        public var reason: String
    }

    public struct Scan: Codable, Sendable {
        @Nullable public var currentUser: String?
        public var apps: [String: Findings]
        /// As the console shows them.
        public var lines: [String]

        enum CodingKeys: String, CodingKey {
            case apps, lines
            case currentUser = "current_user"
        }
    }

    public struct Findings: Codable, Sendable {
        public var leaks: [Finding]
        public var retained: [Finding]
        public var exposed: [String]
    }

    public struct Finding: Codable, Sendable {
        public var user: String
        public var kind: String
        public var file: String
        public var canary: String
        public var encrypted: Bool
    }
}

extension ScenarioReport {
    /// `runs` of one scenario (one unless `--repeat`), each with its wall time in seconds.
    public init(runs: [(result: ScenarioResult, seconds: Double)]) {
        precondition(!runs.isEmpty, "a scenario report needs a run")
        let shownIndex = runs.firstIndex { !$0.result.passed } ?? 0
        let shown = runs[shownIndex].result
        let scenario = shown.scenario
        let sdk = Dictionary(uniqueKeysWithValues: scenario.apps.map { ($0.name, $0.sdk) })
        name = scenario.name
        file = scenario.file
        tags = scenario.tags
        passed = runs.allSatisfy(\.result.passed)
        environmentFailure = shown.environmentFailure
        self.runs = runs.count
        failedRuns = runs.filter { !$0.result.passed }.count
        shownRun = shownIndex + 1
        seconds = runs[shownIndex].seconds
        apps = Self.apps(of: shown)
        steps = shown.steps.map {
            Step(
                location: $0.location.description, step: $0.title, passed: $0.passed,
                failures: $0.failures.map(Failure.init),
                notes: $0.notes)
        }
        pairs = runs.enumerated().flatMap { index, run in
            run.result.timings.map { Pair($0, run: index + 1, sdk: sdk[$0.app]?.rawValue ?? "?") }
        }
        open = shown.timings.filter(\.isOpen).map {
            Open(
                generation: $0.generation, app: $0.app, held: $0.held.description, mechanism: $0.mechanism.rawValue,
                reason: $0.openReason ?? "")
        }
        scan = Scan(shown.scan)
        events = shown.events
        timing = Self.rows(pairs.map(\.timing), apps: apps).map(Row.init)
    }

    private static func apps(of result: ScenarioResult) -> [App] {
        var ran: [String: String] = [:]
        var callbacks: [String: [String]] = [:]
        for event in result.events {
            if event.is(.launched) { ran[event.proc] = event.cleanupThatRan }
            if event.is(.callback), let name = event[.name] { callbacks[event.proc, default: []].append(name) }
        }
        return result.scenario.apps.map {
            App(
                name: $0.name, sdk: $0.sdk.rawValue, background: $0.background, cleanup: ran[$0.name],
                callbacks: callbacks[$0.name] ?? [])
        }
    }

    /// Every pair as the runner timed it.
    public var timings: [SessionChangeTiming] { pairs.map(\.timing) }

    /// The shown run's pairs.
    public var shownTimings: [SessionChangeTiming] { pairs.filter { $0.run == shownRun }.map(\.timing) }

    /// The timing table over every run's pairs.
    public var rows: [TimingRow] { Self.rows(timings, apps: apps) }

    private static func rows(_ timings: [SessionChangeTiming], apps: [App]) -> [TimingRow] {
        let models = Dictionary(apps.map { ($0.name, SDKKind(rawValue: $0.sdk)) }, uniquingKeysWith: { a, _ in a })
        return TimingRow.table(timings, sdk: models.compactMapValues { $0 })
    }
}

extension ScenarioReport.Row {
    init(_ row: TimingRow) {
        self.init(
            model: row.model, mechanism: row.mechanism.rawValue, count: row.count, open: row.open,
            notifiedMS: row.notified, exposureMS: row.exposure)
    }
}

extension ScenarioReport.Pair {
    init(_ timing: SessionChangeTiming, run: Int, sdk: String) {
        self.init(
            run: run, generation: timing.generation, app: timing.app, sdk: sdk, mechanism: timing.mechanism.rawValue,
            t0: timing.t0, notifiedMS: timing.notifiedAfter.map(Self.milliseconds), held: timing.held.description,
            exposureMS: timing.exposure.map(Self.milliseconds), open: timing.isOpen ? timing.openReason ?? "open" : nil)
    }

    /// The pair as the runner timed it (the commit and the moments after it, in ns).
    var timing: SessionChangeTiming {
        SessionChangeTiming(
            generation: generation, app: app, t0: t0, notified: notifiedMS.map { t0 + Self.nanoseconds($0) },
            mechanism: Mechanism(rawValue: mechanism) ?? .none, held: Holdings(text: held),
            clean: exposureMS.map { t0 + Self.nanoseconds($0) }, openReason: open)
    }

    static func milliseconds(_ nanoseconds: UInt64) -> Double { Double(nanoseconds) / 1_000_000 }
    static func nanoseconds(_ milliseconds: Double) -> UInt64 { UInt64(max(0, (milliseconds * 1_000_000).rounded())) }
}

extension ScenarioReport.Scan {
    init(_ summary: ScanSummary) {
        self.init(
            currentUser: summary.currentUser,
            apps: summary.apps.mapValues { found in
                ScenarioReport.Findings(
                    leaks: found.leaks.map(ScenarioReport.Finding.init),
                    retained: found.retained.map(ScenarioReport.Finding.init),
                    exposed: found.exposed.map(\.description))
            }, lines: summary.lines)
    }
}

extension ScenarioReport.Finding {
    init(_ finding: LeakScanner.Finding) {
        self.init(
            user: finding.canary.user, kind: finding.canary.kind.rawValue, file: finding.place,
            canary: finding.canary.description, encrypted: finding.encrypted)
    }
}

/// An optional written as JSON `null` when absent (rather than left out), and read back from
/// `null` or a missing key: the documents keep every key, so readers need not guess.
@propertyWrapper
public struct Nullable<Value: Codable & Sendable>: Codable, Sendable {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension KeyedDecodingContainer {
    public func decode<Value>(_ type: Nullable<Value>.Type, forKey key: Key) throws -> Nullable<Value> {
        try decodeIfPresent(type, forKey: key) ?? Nullable(wrappedValue: nil)
    }
}

extension ScenarioReport.Step {
    /// A version 1 document's failures are the lines as printed.
    public init(from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: CodingKeys.self)
        location = try object.decode(String.self, forKey: .location)
        step = try object.decode(String.self, forKey: .step)
        passed = try object.decode(Bool.self, forKey: .passed)
        notes = try object.decode([String].self, forKey: .notes)
        if let lines = try? object.decode([String].self, forKey: .failures) {
            failures = lines.map { ScenarioReport.Failure(location: "", message: $0) }
        } else {
            failures = try object.decode([ScenarioReport.Failure].self, forKey: .failures)
        }
    }
}

extension ScenarioReport.Failure {
    init(_ failure: StepFailure) {
        self.init(location: failure.location.description, message: failure.message)
        switch failure.reason {
        case .mismatch(let mismatch):
            kind = .mismatch
            self.mismatch = ScenarioReport.Mismatch(
                apps: mismatch.apps, name: mismatch.name, expected: mismatch.expected, got: mismatch.got,
                found: mismatch.found)
        case .stepError: kind = .stepError
        case .invariant(let rule, let process, _):
            kind = .invariant
            invariant = ScenarioReport.Invariant(rule: rule.rawValue, process: process)
        }
    }

    init(location: String, message: String) {
        self.init(location: location, kind: nil, message: message, mismatch: nil, invariant: nil)
    }
}
