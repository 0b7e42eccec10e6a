import Scenario
import Testing

/// `expired` (Docs/scenarios.md): whether an app's expiration handlers ran since it last entered
/// the background, and when.
@Suite struct ExpiredExpectationTests {
    static func check(_ value: String) -> ExpectField.Check? {
        let text = "apps:\n  - {name: mail, sdk: msal}\nsteps:\n  - expect: {mail: {expired: \(value)}}\n"
        guard case .expect(let expectations)? = parsed(text)?.steps.first?.kind else { return nil }
        return expectations.first?.fields.first?.check
    }

    @Test(arguments: [
        ("true", ExpectField.Check.expired(ran: true)),
        ("false", .expired(ran: false)),
        ("{after: 30s}", .expired(ran: true, after: .seconds(30))),
        ("{before: 31s}", .expired(ran: true, before: .seconds(31))),
        ("{after: 29.5s, before: 31s}", .expired(ran: true, after: .milliseconds(29_500), before: .seconds(31))),
    ])
    func itsForms(value: String, check: ExpectField.Check) {
        #expect(Self.check(value) == check)
    }

    @Test(arguments: [
        ("{}", "4:30: expired: expected true, false, or {after: DURATION, before: DURATION}"),
        ("{after: 3s, before: 2s}", "4:50: before: 2s is earlier than after: 3s, so nothing could hold"),
        ("{at: 3s}", "4:31: unknown key at in expired (expected after, before)"),
        ("soon", #"4:30: expired: expected true or false, found 'soon'"#),
    ])
    func whatIsRefused(value: String, problem: String) {
        let text = "apps:\n  - {name: mail, sdk: msal}\nsteps:\n  - expect: {mail: {expired: \(value)}}\n"
        #expect(problems(text) == ["s.yaml:" + problem])
    }
}
