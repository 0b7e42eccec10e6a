import DeviceContract
import LeakScan
import Reports
import RunResults
import Scenario
import SharedDevice

/// A small hand-made run: one scenario whose expectation failed, with a clean exposed pair,
/// an open one and two pairs that held nothing, a leak scan and a short trace; and one
/// scenario whose device could not run.
enum Sample {
    static let name = #"Reports <check> & "quotes""#
    static let file = "reports.yaml"

    static let yaml = """
        name: 'Reports <check> & "quotes"'
        apps:
          - {name: mail, sdk: msal, background: true}
          - {name: notes, sdk: msal, background: true}
          - {name: crm, sdk: ws1, cleanup: {hook: ./clean.sh, keeps: [preferences]}}
          - {name: idle, sdk: msal-android}
        steps:
          - enroll: stage
          - checkout: cou1
          - launch: [mail, notes, crm]
          - checkin
          - expect:
              crm: {leaks: 0}
        """

    static func location(_ line: Int) -> Location { Location(file: file, line: line, column: 5) }

    static let failure = #"reports.yaml:13:7: crm.leaks: expected 0, got 1: <cou1 & "plain">"#
    static let secondFailure = "reports.yaml:13:7: crm.exposed: expected 0, got 1"
    static let failedLeaks = mismatch("leaks", got: "1", found: #"<cou1 & "plain">"#)
    static let failedExposed = mismatch("exposed", got: "1")

    static func mismatch(_ name: String, got: String, found: String? = nil) -> StepFailure {
        let mismatch = Mismatch(apps: ["crm"], name: name, expected: "0", got: got, found: found)
        return StepFailure(location: Location(file: file, line: 13, column: 7), reason: .mismatch(mismatch))
    }
    static let note = #"crm: cleanup (hook ./clean.sh) for cou1 failed: said "no" <here> & there"#

    static let steps = [
        StepResult(location: location(8), title: "enroll: stage", failures: []),
        StepResult(
            location: location(10), title: "launch: mail, notes, crm", failures: [],
            notes: ["mail was running: launch brought it to the front"]),
        StepResult(
            location: location(12), title: "expect: crm", failures: [failedLeaks, failedExposed], notes: [note]),
    ]

    // Times: the trace runs from 1 s to 3 s; the check-in is at 2 s.
    static let first: UInt64 = 1_000_000_000
    static let t0: UInt64 = 2_000_000_000
    static let last: UInt64 = 3_000_000_000

    static let openReason = #"cleanup failed: hook said "no", <twice> & more"#
    static let cou1Plain = Holdings([.init(user: "cou1", kind: .plain)])
    static let cou1PlainAndSensitive = Holdings([
        .init(user: "cou1", kind: .plain), .init(user: "cou1", kind: .sensitive),
    ])

    static let timings = [
        // The check-out: mail learned of it at launch and held nothing.
        SessionChangeTiming(
            generation: 1, app: "mail", t0: 1_500_000_000, newUser: "cou1", notified: 1_500_200_000,
            mechanism: .launch),
        // The check-in: mail cleaned up 3 ms after it.
        SessionChangeTiming(
            generation: 2, app: "mail", t0: t0, notified: t0 + 500_000, mechanism: .signal,
            held: cou1Plain, clean: t0 + 3_000_000),
        // crm learned of it but its cleanup failed.
        SessionChangeTiming(
            generation: 2, app: "crm", t0: t0, notified: t0 + 12_500_000, mechanism: .foreground,
            held: cou1PlainAndSensitive, openReason: openReason),
        // notes held nothing and has not learned of it.
        SessionChangeTiming(generation: 2, app: "notes", t0: t0, notified: nil, mechanism: .none),
    ]

    static let hook = #"/abs/clean.sh & "x""#

    static let events: [TraceEvent] = [
        TraceEvent(t: first, proc: "hub", event: .ready, fields: [.generation: 0]),
        TraceEvent(t: 1_100_000_000, proc: "mail", event: .launched, fields: [.sdk: "msal", .policy: "wipe-all"]),
        TraceEvent(t: 1_200_000_000, proc: "notes", event: .launched, fields: [.sdk: "msal", .policy: "wipe-all"]),
        TraceEvent(
            t: 1_300_000_000, proc: "crm", event: .launched,
            fields: [.sdk: "ws1", .policy: "hook", .hook: .string(hook), .keeps: "preferences"]),
        TraceEvent(
            t: 1_500_000_000, proc: "hub", event: .sessionChanged,
            fields: [.state: "checked-out", .user: "cou1", .generation: 1]),
        TraceEvent(
            t: t0, proc: "hub", event: .sessionChanged, fields: [.state: "checked-in", .user: "none", .generation: 2]),
        TraceEvent(
            t: t0 + 100_000, proc: "hub", event: .posted,
            fields: [.name: .string(NotifyCenter.accountChanged), .state: 2]),
        TraceEvent(
            t: t0 + 500_000, proc: "mail", event: .postReceived, fields: [.name: .string(NotifyCenter.accountChanged)]),
        TraceEvent(t: t0 + 600_000, proc: "mail", event: .checkStarted, fields: [.trigger: "signal"]),
        TraceEvent(
            t: t0 + 700_000, proc: "mail", event: .callback,
            fields: [.name: "current-account(none,cou1)", .trigger: "signal"]),
        TraceEvent(
            t: t0 + 1_000_000, proc: "mail", event: .cleanupStarted, fields: [.previous: "cou1", .current: "none"]),
        TraceEvent(t: t0 + 3_000_000, proc: "mail", event: .cleanupFinished, fields: [.previous: "cou1", .holds: ""]),
        TraceEvent(t: t0 + 12_500_000, proc: "crm", event: .checkStarted, fields: [.trigger: "foreground"]),
        TraceEvent(
            t: t0 + 13_000_000, proc: "crm", event: .cleanupStarted, fields: [.previous: "cou1", .current: "none"]),
        TraceEvent(
            t: t0 + 20_000_000, proc: "crm", event: .cleanupFailed,
            fields: [.previous: "cou1", .holds: "cou1/plain,cou1/sensitive", .error: "said \"no\""]),
        TraceEvent(t: last, proc: "mail", event: .terminated),
    ]

    static let leak = LeakScanner.Finding(
        canary: Canary(user: "cou1", app: "crm", kind: .plain, number: 1), app: "crm",
        file: "/run/containers/crm/documents/cou1/plain-1-1.txt",
        place: "documents/cou1/plain-1-1.txt", encrypted: false)
    static let retained = LeakScanner.Finding(
        canary: Canary(user: "cou1", app: "crm", kind: .preferences, number: 2), app: "crm",
        file: "/run/containers/crm/preferences/cou1.json",
        place: "preferences/cou1.json", encrypted: true)

    static var scan: ScanSummary {
        var scan = ScanSummary()
        scan.currentUser = nil
        var findings = ScanSummary.Findings()
        findings.leaks = [leak]
        findings.retained = [retained]
        findings.exposed = [leak.canary]
        scan.apps["crm"] = findings
        return scan
    }

    static let environmentFailure = "dbus-daemon did not start: <no socket> & \"gone\""

    /// Each result as one run of 1.5 s.
    static func results() throws -> [ScenarioReport] {
        try runResults().map { ScenarioReport(runs: [($0, 1.5)]) }
    }

    static func runResults() throws -> [ScenarioResult] {
        let scenario = try Scenario.parse(yaml, file: file)
        var failed = ScenarioResult(scenario: scenario, steps: steps, timings: timings)
        failed.events = events
        failed.scan = scan
        var broken = try Scenario.parse("name: broken device\nsteps:\n  - enroll: stage\n", file: "broken.yaml")
        broken.name = "broken device"
        let couldNotRun = ScenarioResult(
            scenario: broken, steps: [], timings: [], environmentFailure: environmentFailure)
        return [failed, couldNotRun]
    }
}
