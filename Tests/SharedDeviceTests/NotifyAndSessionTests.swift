import Foundation
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

    /// Any client may set states: the names kept are bounded (before, 8,000 names slowed every
    /// save of the hub's state fourfold).
    @Test func namesAreBoundedTheLeastRecentlySetGoFirstAndTheAccountChangeNameStays() throws {
        var center = NotifyCenter()
        center.setState(of: NotifyCenter.accountChanged, to: 3)
        for n in 0..<(NotifyCenter.capacity * 4) { center.setState(of: "flood.\(n)", to: 1) }
        center.setState(of: "flood.\(NotifyCenter.capacity * 4 - 200)", to: 2)  // set again: recent now
        for n in 0..<50 { center.setState(of: "late.\(n)", to: 1) }
        #expect(center.count == NotifyCenter.capacity)
        #expect(center.state(of: NotifyCenter.accountChanged) == 3)
        #expect(center.state(of: "flood.0") == 0, "forgotten")
        #expect(center.state(of: "flood.\(NotifyCenter.capacity * 4 - 200)") == 2)
        #expect(center.state(of: "late.49") == 1)
        center.setState(of: "late.49", to: 0)
        #expect(center.count == NotifyCenter.capacity - 1, "a name set to 0 is forgotten")
        let saved = try JSONEncoder().encode(center)
        #expect(try JSONDecoder().decode(NotifyCenter.self, from: saved).state(of: "late.48") == 1)
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

    @Test(arguments: [
        "", "ms", "-1s", "fast", "1e30s", "nan", "5 parsecs", "1500", "3", "0x10s", "+5s", "1e3ms", "infs", ".5s",
        "5.s", "1.2.3s", "5 s",
    ])
    func rejects(text: String) {
        #expect(Durations.parse(text) == nil)
    }
}
