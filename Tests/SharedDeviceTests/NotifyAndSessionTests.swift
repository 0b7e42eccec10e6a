import Foundation
import SharedDevice
import Testing

@Suite struct SessionTests {
    @Test func aFreshDeviceIsUnenrolledAtGenerationZero() {
        #expect(Session.unenrolled == Session(state: .unenrolled, user: nil, generation: 0))
        #expect(Session.State.allCases.map(\.rawValue) == ["unenrolled", "checked-in", "checked-out"])
    }

    /// Only a checked-out session has a user the device is checked out to; a name left in
    /// another state (a session read as the hub wrote it) is nobody's.
    @Test(
        arguments: [
            (Session.State.unenrolled, "cou1", nil), (.checkedIn, "cou1", nil), (.checkedOut, "cou1", "cou1"),
            (.checkedOut, nil, nil),
        ] as [(Session.State, String?, String?)])
    func theCheckedOutUserIsTheUserOfACheckedOutSessionOnly(state: Session.State, user: String?, expected: String?) {
        #expect(Session(state: state, user: user).checkedOutUser == expected)
    }
}

@Suite struct DurationTests {
    @Test(arguments: [
        ("250ms", Duration.milliseconds(250)), ("5s", .seconds(5)), ("1.5s", .milliseconds(1500)),
        ("2m", .seconds(120)), ("40us", .microseconds(40)), (" 1h ", .seconds(3600)),
        ("0s", .zero),
    ])
    func parses(text: String, expected: Duration) {
        #expect(Durations.parse(text) == expected)
    }

    @Test(arguments: [
        "", "ms", "-1s", "fast", "1e30s", "nan", "5 parsecs", "1500", "3", "0x10s", "+5s", "1e3ms", "infs", ".5s",
        "5.s", "1.2.3s", "5 s",
    ])
    func rejects(text: String) {
        #expect(Durations.parse(text) == nil)
    }
}
