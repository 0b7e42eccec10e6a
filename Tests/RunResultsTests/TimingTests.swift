import DeviceContract
import LeakScan
import SharedDevice
import Testing

@testable import RunResults

/// Docs/behaviour.md §9 over merged traces: notified, mechanism, and — where the app held another user's
/// data at the commit — clean and the exposure window, true when the cleanup fails too.
@Suite struct TimingTests {
    static func event(_ t: UInt64, _ proc: String, _ event: String, _ fields: [String: TraceValue] = [:]) -> TraceEvent
    {
        TraceEvent(t: t, proc: proc, event: event, fields: fields)
    }

    static let launched = [event(1, "mail", "launched"), event(2, "inv", "launched")]
    /// Both apps hold three plain records of cou1, written while cou1 was the device's user.
    static let cou1Data = [
        event(5, "mail", "wrote", ["user": "cou1", "kind": "plain", "count": 3]),
        event(6, "inv", "wrote", ["user": "cou1", "kind": "plain", "count": 3]),
    ]
    static let checkIn = event(100, "hub", "session-changed", ["generation": 2, "user": ""])
    static let cou1Plain = Holdings([.init(user: "cou1", kind: .plain)])

    static func timing(
        of app: String, _ events: [TraceEvent], cleanup: CleanupPolicy = .wipeAll,
        generation: UInt64 = 2
    ) -> SessionChangeTiming? {
        SessionChangeTiming.all(in: events, cleanups: [app: cleanup]).first {
            $0.app == app && $0.generation == generation
        }
    }

    @Test func aPostDrivenCleanupIsTimedFromTheCommit() {
        let events =
            Self.launched + Self.cou1Data + [
                Self.checkIn,
                Self.event(103, "mail", "post-received"),
                Self.event(104, "mail", "check-started", ["trigger": "signal"]),
                Self.event(110, "mail", "cleanup-started"),
                Self.event(150, "mail", "cleanup-finished", ["holds": ""]),
                Self.event(151, "mail", "check-finished"),
            ]
        let mail = Self.timing(of: "mail", events)
        #expect(
            mail
                == SessionChangeTiming(
                    generation: 2, app: "mail", t0: 100, newUser: nil, notified: 103,
                    mechanism: .signal, held: Self.cou1Plain, clean: 150))
        #expect(mail?.exposure == 50 && mail?.notifiedAfter == 3)
        let inventory = Self.timing(of: "inv", events)
        #expect(inventory?.mechanism == Mechanism.none && inventory?.isOpen == true)
        #expect(inventory?.openReason == "the app has not learned of the change yet")
    }

    /// With Authenticator as the broker: a Hub check-in opens the window of an MSAL app that
    /// holds the worker's data, and it is never told of it; MSAL's sign-out is its own pair,
    /// timing the post, and the cleanup it leads to closes the check-in's window.
    @Test func underAuthenticatorAnMSALAppIsToldOfMSALsChangesOnly() {
        let events =
            [
                Self.event(0, "hub", "ready", ["broker": "authenticator"]),
                Self.event(1, "mail", "launched", ["sdk": "msal"]),
                Self.event(2, "inv", "launched", ["sdk": "ws1"]),
            ] + Self.cou1Data + [
                Self.checkIn,
                Self.event(101, "mail", "check-started", ["trigger": "foreground"]),
                Self.event(102, "mail", "check-finished"),
                Self.event(200, "hub", "account-changed", ["generation": 3, "user": ""]),
                Self.event(203, "mail", "post-received"),
                Self.event(204, "mail", "check-started", ["trigger": "signal"]),
                Self.event(250, "mail", "cleanup-finished", ["holds": ""]),
                Self.event(251, "mail", "check-finished"),
            ]
        let checkIn = Self.timing(of: "mail", events)
        #expect(checkIn?.notified == nil && checkIn?.mechanism == Mechanism.none, "a foreground check is no news of it")
        #expect(checkIn?.held == Self.cou1Plain && checkIn?.clean == 250 && checkIn?.exposure == 150)
        let signOut = Self.timing(of: "mail", events, generation: 3)
        #expect(signOut?.mechanism == .signal && signOut?.notified == 203 && signOut?.exposed == false)
        #expect(Self.timing(of: "inv", events, generation: 3) == nil, "Workspace ONE does not follow MSAL")
        let inventory = Self.timing(of: "inv", events)
        #expect(inventory?.isOpen == true && inventory?.openReason == "the app has not learned of the change yet")
    }

    @Test func underAuthenticatorAnMSALAppNeverToldStaysOpenAndSaysWhy() {
        let events =
            [
                Self.event(0, "hub", "ready", ["broker": "authenticator"]),
                Self.event(1, "mail", "launched", ["sdk": "msal"]),
            ] + Self.cou1Data + [Self.checkIn]
        let mail = Self.timing(of: "mail", events)
        #expect(mail?.isOpen == true)
        #expect(mail?.openReason?.hasPrefix("an MSAL app is not told of a Hub check-in") == true)
    }

    @Test(arguments: [
        (
            "cleanup-failed", "cou1/plain", "the cleanup hook `exit 3` failed: exit code 3",
            "cleanup failed: the cleanup hook `exit 3` failed: exit code 3"
        ),
        // A hook that exits 0 but deletes nothing: the app's scan finds the data, the cleanup failed.
        (
            "cleanup-failed", "cou1/plain", "left cou1 plain ×3 (documents/cou1/plain-1-3.txt)",
            "cleanup failed: left cou1 plain ×3 (documents/cou1/plain-1-3.txt)"
        ),
        // A failed hook that deleted everything is still no clean cleanup.
        (
            "cleanup-failed", "", "the cleanup hook `x` did not finish within 10 s",
            "cleanup failed: the cleanup hook `x` did not finish within 10 s"
        ),
    ])
    func aCleanupThatFailedOrLeftDataLeavesThePairOpen(event: String, holds: String, error: String, reason: String) {
        let events =
            Self.launched + Self.cou1Data + [
                Self.checkIn,
                Self.event(104, "mail", "check-started", ["trigger": "signal"]),
                Self.event(150, "mail", event, ["holds": .string(holds), "error": .string(error)]),
                Self.event(151, "mail", "check-finished"),
            ]
        let mail = Self.timing(of: "mail", events, cleanup: .hook(command: "x"))
        #expect(mail?.clean == nil && mail?.exposure == nil && mail?.isOpen == true)
        #expect(mail?.openReason == reason)
        let table = TimingRow.table([mail!], sdk: ["mail": .msal])
        #expect(table.map { "\($0.count) \($0.open)" } == ["1 1"] && table[0].exposure == nil)
    }

    /// A scan that could not read the container (the app out of descriptors) proves nothing: its
    /// `cleanup-failed` carries no `holds`, the pair stays open with why, and what the app held
    /// before is still what it holds at the next change.
    @Test func aScanThatCouldNotReadEverythingClosesNothing() {
        let unproven =
            "the scan could not read the whole container, so it proves nothing: the container cannot be opened:"
            + " Too many open files"
        let checkOut = Self.event(200, "hub", "session-changed", ["generation": 3, "user": "cou2"])
        let events =
            Self.launched + Self.cou1Data + [
                Self.checkIn,
                Self.event(104, "mail", "check-started", ["trigger": "signal"]),
                Self.event(150, "mail", "cleanup-failed", ["error": .string(unproven)]),
                Self.event(151, "mail", "check-finished"),
                checkOut,
            ]
        let mail = Self.timing(of: "mail", events, cleanup: .own())
        #expect(mail?.isOpen == true && mail?.exposure == nil)
        #expect(mail?.openReason == "cleanup failed: " + unproven)
        #expect(Self.timing(of: "mail", events, cleanup: .own(), generation: 3)?.held == Self.cou1Plain)
    }

    @Test func aLaterCleanupThatLeavesNothingClosesThePairThen() {
        let events =
            Self.launched + Self.cou1Data + [
                Self.checkIn,
                Self.event(150, "mail", "cleanup-failed", ["holds": "cou1/plain", "error": "exit 3"]),
                Self.event(400, "mail", "cleanup-finished", ["holds": ""]),
            ]
        #expect(Self.timing(of: "mail", events)?.clean == 400)
    }

    @Test func nothingHeldOfAnotherUserIsNoExposure() {
        // Enrollment and a check-out before the app held anything: no exposure pair.
        let events =
            Self.launched + [
                Self.event(50, "hub", "session-changed", ["generation": 0, "user": ""]),
                Self.event(60, "hub", "session-changed", ["generation": 1, "user": "cou1"]),
                Self.event(500, "mail", "check-started", ["trigger": "launch"]),
                Self.event(510, "mail", "check-finished"),
            ]
        for generation: UInt64 in [0, 1] {
            let mail = Self.timing(of: "mail", events, generation: generation)
            #expect(mail?.exposed == false && mail?.isOpen == false && mail?.exposure == nil)
            #expect(mail?.mechanism == .launch, "how the app learned is still told")
        }
        #expect(TimingRow.table(SessionChangeTiming.all(in: events, cleanups: [:]), sdk: ["mail": .msal]).isEmpty)
    }

    @Test func whatTheCleanupDeclaresItKeepsIsNotExposure() {
        let events =
            Self.launched + [
                Self.event(5, "mail", "wrote", ["user": "cou1", "kind": "common", "count": 2]),
                Self.checkIn,
            ]
        #expect(Self.timing(of: "mail", events, cleanup: .cacheCommon)?.exposed == false)
        #expect(Self.timing(of: "mail", events, cleanup: .hook(command: "x", keeps: [.common]))?.exposed == false)
        #expect(
            Self.timing(of: "mail", events, cleanup: .hook(command: "x"))?.exposed == true,
            "a hook keeps nothing undeclared")
        #expect(Self.timing(of: "mail", events, cleanup: .wipeAll)?.exposed == true)
    }

    @Test func thePairClosesWhenTheOwnerOfWhatIsLeftIsBack() {
        // A→none→A while the app was away: cou1's data was readable with nobody checked out.
        let events =
            Self.launched + Self.cou1Data + [
                Self.checkIn,
                Self.event(300, "hub", "session-changed", ["generation": 3, "user": "cou1"]),
            ]
        let mail = Self.timing(of: "mail", events)
        #expect(mail?.clean == 300 && mail?.exposure == 200)
        #expect(Self.timing(of: "mail", events, generation: 3)?.exposed == false)
    }

    @Test func aFailedCheckOrANonOpportunityLeavesTheAppUnnotified() {
        let events =
            Self.launched + Self.cou1Data + [
                Self.checkIn,
                Self.event(120, "inv", "check-started", ["trigger": "foreground"]),
                Self.event(121, "inv", "check-failed"),
                // A blocked Workspace ONE app's return to the foreground: the SDK does not look.
                Self.event(200, "inv", "check-started", ["trigger": "foreground"]),
                Self.event(201, "inv", "check-finished", ["opportunity": false]),
                Self.event(300, "inv", "check-started", ["trigger": "launch"]),
                Self.event(310, "inv", "cleanup-finished", ["holds": ""]),
                Self.event(320, "inv", "check-finished"),
            ]
        let inventory = Self.timing(of: "inv", events)
        #expect(inventory?.notified == 300 && inventory?.mechanism == .launch && inventory?.clean == 310)
    }

    @Test func aCheckStartedBeforeTheChangeDoesNotCount() {
        let events =
            Self.launched + [
                Self.event(90, "mail", "check-started", ["trigger": "launch"]),
                Self.event(100, "hub", "session-changed", ["generation": 1]),
                Self.event(110, "mail", "check-finished"),
            ]
        #expect(Self.timing(of: "mail", events, generation: 1)?.notified == nil)
    }

    @Test func linesMergeInTimeOrderAndBrokenLinesAreSkipped() {
        #expect(
            TraceEvent(line: #"{"t":5,"proc":"hub","event":"posted","name":"X","state":2}"#)
                == TraceEvent(t: 5, proc: "hub", event: "posted", fields: ["name": "X", "state": 2]))
        #expect(TraceEvent(line: #"{"t":5,"proc":"hub""#) == nil)
        #expect(
            TraceEvent(line: #"{"t":5,"proc":"a","event":"e","x":false,"y":true,"z":0}"#)?.fields == [
                "x": false, "y": true, "z": 0,
            ])
    }

    @Test func openPairsAlikeButForTheAppAreOneLine() {
        let open =
            (1...20).map {
                SessionChangeTiming(
                    generation: 2, app: "fleet\($0)", t0: 0, notified: 5, mechanism: .signal,
                    held: Self.cou1Plain, openReason: "cleanup failed: exit 3")
            } + [
                SessionChangeTiming(
                    generation: 2, app: "mail", t0: 0, notified: nil, mechanism: .none,
                    held: Self.cou1Plain, openReason: "the app has not learned of the change yet")
            ]
        #expect(
            SessionChangeTiming.openLines(open) == [
                "generation 2, fleet1–fleet20 (20 apps) (held cou1/plain): cleanup failed: exit 3",
                "generation 2, mail (held cou1/plain): the app has not learned of the change yet",
            ])
        #expect(AppNames.listed(["a1", "a2", "a4", "mail", "b", "a5"]) == "a1–a2, a4, mail, b, a5")
    }
}

extension TimingTests {
    @Test func theTableGroupsByModelAndMechanismWithPercentiles() throws {
        let timings =
            (1...100).map { n in
                SessionChangeTiming(
                    generation: 2, app: "app\(n)", t0: 0, notified: UInt64(n) * 100_000,
                    mechanism: .signal, held: Self.cou1Plain, clean: UInt64(n) * 1_000_000)
            } + [
                SessionChangeTiming(
                    generation: 2, app: "inv", t0: 0, notified: nil, mechanism: .none, held: Self.cou1Plain,
                    openReason: "the app has not learned of the change yet"),
                SessionChangeTiming(generation: 2, app: "idle", t0: 0, notified: 5, mechanism: .signal),
            ]
        let sdk = Dictionary(
            uniqueKeysWithValues: (1...100).map { ("app\($0)", SDKKind.msal) } + [("inv", .ws1), ("idle", .msal)])
        let table = TimingRow.table(timings, sdk: sdk)
        #expect(
            table.map { "\($0.model) \($0.mechanism.rawValue) \($0.count) \($0.open)" } == [
                "msal signal 100 0", "ws1 none 1 1",
            ])
        let exposure = try #require(table[0].exposure)
        // Three significant digits: within 0.1 %.
        func near(_ value: Double?, _ expected: Double) -> Bool {
            value.map { abs($0 - expected) <= expected / 1000 } ?? false
        }
        #expect(
            near(exposure.p50, 50) && near(exposure.p90, 90) && near(exposure.p99, 99) && near(exposure.max, 100),
            "\(exposure)")
        #expect(near(table[0].notified?.max, 10) && table[1].exposure == nil)
    }
}

@Suite struct PartitionPointTests {
    @Test(arguments: [
        ([], 5, 0), ([1], 0, 0), ([1], 1, 1), ([1, 2, 2, 3], 2, 3), ([1, 2, 2, 3], 0, 0), ([1, 2, 2, 3], 9, 4),
        ([5, 5, 5], 5, 3),
    ])
    func theFirstElementPastTheBound(values: [Int], bound: Int, index: Int) {
        #expect(values.partitionPoint { $0 <= bound } == index)
        if !values.isEmpty {
            #expect(values[1...].partitionPoint { $0 <= bound } == max(index, 1), "on a slice, in its indices")
        }
    }
}

/// What a terminal or a report shows of text from a scenario or an app: control characters as
/// their escapes, so none can steer the terminal or forge a line.
@Suite struct VisibleTextTests {
    @Test(arguments: [
        ("plain name", "plain name", "plain name"),
        ("red \u{1B}[31mred", #"red \u{1B}[31mred"#, #"red \u{1B}[31mred"#),
        ("one\ntwo\rthree", #"one\ntwo\rthree"#, "one\ntwo\\rthree"),
        (
            "bell\u{7}tab\tdel\u{7F}c1\u{9B}", #"bell\u{07}tab\tdel\u{7F}c1\u{009B}"#,
            #"bell\u{07}tab\tdel\u{7F}c1\u{009B}"#
        ),
        ("line\u{2028}paragraph\u{2029}", #"line\u{2028}paragraph\u{2029}"#, #"line\u{2028}paragraph\u{2029}"#),
        ("ünïcödé ✓", "ünïcödé ✓", "ünïcödé ✓"),
    ])
    func controlCharactersAreEscaped(text: String, oneLine: String, lines: String) {
        #expect(VisibleText.escaped(text) == oneLine)
        #expect(VisibleText.escaped(text, keepingLineBreaks: true) == lines)
    }
}
