import Scenario
import SharedDevice
import Testing

/// `cleanup:` in each of its forms, and `callbacks:` in each SDK's words.
@Suite struct DeclarationTests {
    @Test(arguments: [
        ("cleanup: {hook: rm -rf x}", CleanupPolicy.hook(command: "rm -rf x")),
        ("cleanup: {hook: rm -rf x, keeps: [common]}", .hook(command: "rm -rf x", keeps: [.common])),
        (
            "cleanup: {keeps: [preferences, common], hook: rm -rf x}",
            .hook(command: "rm -rf x", keeps: [.preferences, .common])
        ),
        ("cleanup: {hook: rm -rf x, keeps: []}", .hook(command: "rm -rf x")),
        ("cleanup: own, executable: /opt/app", .own()),
        ("cleanup: {keeps: [common]}, executable: /opt/app", .own(keeps: [.common])),
        ("executable: /opt/app, cleanup: {keeps: [preferences]}", .own(keeps: [.preferences])),
        ("cleanup: retain-preferences, executable: /opt/app", .retainPreferences),
    ])
    func eachCleanupForm(fields: String, policy: CleanupPolicy) throws {
        let app = try #require(parsed("apps:\n  - {name: mail, sdk: msal, \(fields)}\n")?.apps.first)
        #expect(app.cleanup == policy)
    }

    @Test func aFleetOfATeamsAppSharesItsOwnCleanup() throws {
        let apps = try #require(
            parsed("apps:\n  - {name: shop, count: 2, sdk: ws1, executable: /opt/shop, cleanup: {keeps: [common]}}\n")
        ).apps
        #expect(apps.map(\.cleanup) == [.own(keeps: [.common]), .own(keeps: [.common])])
    }

    @Test func everySDKsOwnCallbacksAreKnown() throws {
        let text = """
            users: [stage, cou1, cou2]
            apps:
              - {name: mail, sdk: msal}
              - {name: scanner, sdk: msal-android}
              - {name: inventory, sdk: ws1}
              - {name: fleet, count: 2, sdk: ws1}
            steps:
              - expect:
                  mail: {callbacks: [current-account(cou1,none), current-account(none,cou2), "current-account(none,none)"]}
                  scanner: {callbacks: [account-changed(none,cou1), account-loaded(cou1), account-changed(cou1,none), account-loaded(none)]}
                  inventory: {callbacks: [wipe, user-changed, initial-check, initial-check(sharedDeviceNotCheckedOut), initial-check(HubUnreachable)]}
                  fleet: {callbacks: [wipe]}
                  ws1: {callbacks: [user-changed, initial-check]}
                  all: {callbacks: []}
            """
        let scenario = try #require(parsed(text))
        guard case .expect(let expectations) = scenario.steps.first?.kind else {
            Issue.record("not an expectation")
            return
        }
        #expect(
            expectations.first?.fields.first?.check
                == .callbacks([
                    "current-account(cou1,none)", "current-account(none,cou2)", "current-account(none,none)",
                ]))
    }

    @Test func eachWrongCallbackIsReportedAtItsItem() {
        let found = problems(
            head + "  - expect:\n      inventory: {callbacks: [wipe, wip, user-changed, initial-check(x)]}\n")
        #expect(
            found == [
                "s.yaml:7:37: callbacks: unknown callback 'wip' for a ws1 app (expected wipe, user-changed, initial-check, initial-check(ERROR))",
                "s.yaml:7:56: callbacks: unknown error 'x' in 'initial-check(x)' (expected sharedDeviceNotCheckedOut or HubUnreachable)",
            ])
    }
}
