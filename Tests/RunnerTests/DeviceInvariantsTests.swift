import DeviceContract
import RunResults
import Testing

@testable import Runner

/// What every run checks in its merged trace, whatever its steps.
@Suite struct DeviceInvariantsTests {
    static func event(_ t: UInt64, _ proc: String, _ event: String, _ fields: [String: TraceValue] = [:]) -> TraceEvent
    {
        TraceEvent(t: t, proc: proc, event: event, fields: fields)
    }

    @Test func aRunThatKeepsThemHasNoViolation() {
        let events = [
            Self.event(1, "hub", "session-changed", ["generation": 1]),
            Self.event(2, "inventory", "launched"),
            Self.event(3, "inventory", "check-started"),
            Self.event(4, "inventory", "callback", ["name": "initial-check"]),
            Self.event(5, "hub", "session-changed", ["generation": 2]),
            Self.event(6, "hub", "session-changed", ["generation": 2]),  // an enterprise wipe keeps it
            Self.event(7, "inventory", "check-started"),
            Self.event(8, "inventory", "callback", ["name": "wipe"]),
            Self.event(9, "inventory", "callback", ["name": "initial-check(sharedDeviceNotCheckedOut)"]),
            Self.event(10, "scanner", "check-started"),
            Self.event(11, "scanner", "callback", ["name": "account-changed(cou1,none)"]),
            Self.event(12, "scanner", "callback", ["name": "account-loaded(none)"]),
        ]
        #expect(DeviceInvariants.violations(in: events).isEmpty)
    }

    @Test func aGenerationThatGoesBackAndACallbackKindTwiceInOneCheckAreViolations() {
        let events = [
            Self.event(1, "hub", "session-changed", ["generation": 3]),
            Self.event(2, "hub", "session-changed", ["generation": 2]),
            Self.event(3, "inventory", "check-started"),
            Self.event(4, "inventory", "callback", ["name": "wipe"]),
            Self.event(5, "mail", "check-started"),
            Self.event(6, "inventory", "callback", ["name": "wipe"]),
        ]
        let violations = DeviceInvariants.violations(in: events)
        #expect(violations.map(\.rule) == [.generationNeverGoesBack, .oneCallbackOfAKindPerCheck])
        #expect(violations.map(\.process) == ["hub", "inventory"])
        #expect(
            violations.map(\.detail)
                == ["the hub's generation went back from 3 to 2", "inventory got a second wipe in one check"])
    }
}
