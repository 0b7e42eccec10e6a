import Runner
import SharedDevice
import Testing

/// SPEC §3 over merged traces: notified, clean, mechanism and the exposure window.
@Suite struct TimingTests {
    static func event(_ t: UInt64, _ proc: String, _ event: String, _ fields: [String: String] = [:]) -> TraceEvent {
        TraceEvent(t: t, proc: proc, event: event, fields: fields)
    }

    static let launched = [event(1, "mail", "launched"), event(2, "inv", "launched")]

    @Test func aPostDrivenCleanupIsTimedFromTheCommit() {
        let events = Self.launched + [
            Self.event(100, "hub", "session-changed", ["generation": "2"]),
            Self.event(103, "mail", "post-received"),
            Self.event(104, "mail", "check-started", ["trigger": "signal"]),
            Self.event(110, "mail", "cleanup-started"),
            Self.event(150, "mail", "cleanup-finished"),
            Self.event(151, "mail", "check-finished"),
        ]
        let timings = SessionChangeTiming.all(in: events)
        let mail = timings.first { $0.app == "mail" }
        #expect(mail == SessionChangeTiming(generation: 2, app: "mail", t0: 100, notified: 103, clean: 150, mechanism: .signal))
        #expect(mail?.exposure == 50 && mail?.notifiedAfter == 3)
        let inventory = timings.first { $0.app == "inv" }
        #expect(inventory?.mechanism == SessionChangeTiming.Mechanism.none && inventory?.exposure == nil, "still open")
    }

    @Test func aFailedCheckLeavesTheWindowOpenUntilACheckSucceeds() {
        let events = Self.launched + [
            Self.event(100, "hub", "session-changed", ["generation": "3"]),
            Self.event(120, "inv", "check-started", ["trigger": "foreground"]),
            Self.event(121, "inv", "check-failed"),
            Self.event(300, "inv", "check-started", ["trigger": "foreground"]),
            Self.event(320, "inv", "check-finished"),
        ]
        let inventory = SessionChangeTiming.all(in: events).first { $0.app == "inv" }
        #expect(inventory == SessionChangeTiming(generation: 3, app: "inv", t0: 100, notified: 300, clean: 320, mechanism: .foreground))
    }

    @Test func aCheckStartedBeforeTheChangeDoesNotCount() {
        let events = Self.launched + [
            Self.event(90, "mail", "check-started", ["trigger": "launch"]),
            Self.event(100, "hub", "session-changed", ["generation": "1"]),
            Self.event(110, "mail", "check-finished"),
        ]
        #expect(SessionChangeTiming.all(in: events).first { $0.app == "mail" }?.clean == nil)
    }

    @Test func linesMergeInTimeOrderAndBrokenLinesAreSkipped() {
        #expect(TraceEvent(line: #"{"t":5,"proc":"hub","event":"posted","name":"X","state":2}"#)
                == TraceEvent(t: 5, proc: "hub", event: "posted", fields: ["name": "X", "state": "2"]))
        #expect(TraceEvent(line: #"{"t":5,"proc":"hub""#) == nil)
    }
}

extension TimingTests {
    @Test func theTableGroupsByModelAndMechanismWithPercentiles() throws {
        let timings = (1...100).map { n in
            SessionChangeTiming(generation: 2, app: "app\(n)", t0: 0, notified: UInt64(n) * 100_000,
                                clean: UInt64(n) * 1_000_000, mechanism: .signal)
        } + [SessionChangeTiming(generation: 2, app: "inv", t0: 0, notified: nil, clean: nil, mechanism: .none)]
        let sdk = Dictionary(uniqueKeysWithValues: (1...100).map { ("app\($0)", SDKKind.msal) } + [("inv", .ws1)])
        let table = TimingRow.table(timings, sdk: sdk)
        #expect(table.map { "\($0.model) \($0.mechanism.rawValue) \($0.count) \($0.open)" } == ["msal signal 100 0", "ws1 none 1 1"])
        let exposure = try #require(table[0].exposure)
        // Three significant digits: within 0.1 %.
        func near(_ value: Double?, _ expected: Double) -> Bool { value.map { abs($0 - expected) <= expected / 1000 } ?? false }
        #expect(near(exposure.p50, 50) && near(exposure.p90, 90) && near(exposure.p99, 99) && near(exposure.max, 100), "\(exposure)")
        #expect(near(table[0].notified?.max, 10) && table[1].exposure == nil)
    }
}
