import SharedDevice
import Testing

@Suite struct NotifyCenterTests {
    @Test func unsetNamesReadZeroAndStatesAreKeptPerName() {
        var center = NotifyCenter()
        #expect(center.state(of: "A") == 0)
        center.setState(of: "A", to: .max)
        center.setState(of: "B", to: 7)
        #expect(center.state(of: "A") == .max)
        #expect(center.state(of: "B") == 7)
    }

    @Test(arguments: [
        ("", false), ("SHARED_MODE_CURRENT_ACCOUNT_CHANGED", true), ("a\0b", false),
        (String(repeating: "x", count: 255), true), (String(repeating: "x", count: 256), false),
        ("com.apple.any thing/ok", true),
    ])
    func names(name: String, valid: Bool) {
        #expect(NotifyCenter.isValidName(name) == valid)
    }
}

@Suite struct SessionTests {
    @Test func aFreshDeviceIsUnenrolledAtGenerationZero() {
        #expect(Session.unenrolled == Session(state: .unenrolled, user: nil, generation: 0))
        #expect(Session.State.allCases.map(\.rawValue) == ["unenrolled", "checked-in", "checked-out"])
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

    @Test(arguments: ["", "ms", "-1s", "fast", "1e30s", "nan", "5 parsecs", "1500", "3"])
    func rejects(text: String) {
        #expect(Durations.parse(text) == nil)
    }
}
