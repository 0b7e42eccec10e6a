import SharedDevice
import Testing

/// The callbacks' words (Docs/behaviour.md §4–§6) are what traces, snapshots and scenarios say:
/// each value reads back from its text, and a text no SDK makes reads as none.
@Suite struct CheckResultTests {
    @Test(
        arguments: [
            (SDKCallback.currentAccount(current: "cou2", previous: "cou1"), "current-account(cou2,cou1)"),
            (.currentAccount(current: nil, previous: "cou1"), "current-account(none,cou1)"),
            (.currentAccount(current: "cou1", previous: nil), "current-account(cou1,none)"),
            (.currentAccount(current: nil, previous: nil), "current-account(none,none)"),
            (.accountChanged(prior: "cou1", current: "cou2"), "account-changed(cou1,cou2)"),
            (.accountChanged(prior: nil, current: "cou2"), "account-changed(none,cou2)"),
            (.accountChanged(prior: "cou1", current: nil), "account-changed(cou1,none)"),
            (.accountLoaded("cou1"), "account-loaded(cou1)"),
            (.accountLoaded(nil), "account-loaded(none)"),
            (.wipe, "wipe"),
            (.userChanged, "user-changed"),
            (.initialCheck(error: nil), "initial-check"),
            (.initialCheck(error: "HubUnreachable"), "initial-check(HubUnreachable)"),
            (.initialCheck(error: "sharedDeviceNotCheckedOut"), "initial-check(sharedDeviceNotCheckedOut)"),
        ])
    func eachCallbackReadsBackFromItsWords(callback: SDKCallback, text: String) {
        #expect(callback.description == text)
        #expect(SDKCallback(text: text) == callback)
        #expect(callback.kind.rawValue == String(text.prefix { $0 != "(" }))
    }

    @Test(
        arguments: [
            "", "wip", "Wipe", "wipe()", "wipe(cou1)", "user-changed(cou1)", "current-account", "current-account(cou1)",
            "current-account(cou1,cou2,cou3)", "current-account(cou1,cou2", "current-account cou1,cou2)",
            "account-loaded", "account-loaded(cou1,cou2)", "account-changed(cou1)", "initial-check(a,b)",
            "(cou1,cou2)", "current-account(cou1,cou2) ",
        ])
    func aTextNoSDKMakesIsRefused(text: String) {
        #expect(SDKCallback(text: text) == nil)
    }

    @Test func argumentsAreTakenAsWrittenForTheReaderToJudge() {
        #expect(SDKCallback(text: "current-account(cou1, none)")?.users == ["cou1", " none"])
        #expect(SDKCallback(text: "initial-check(Offline)")?.error == "Offline")
        #expect(SDKCallback(text: "current-account(none,cou1)")?.users == ["cou1"])
        #expect(SDKCallback.wipe.users.isEmpty && SDKCallback.wipe.error == nil)
    }

    @Test func eachSDKHasItsOwnCallbacks() {
        let kinds = SDKKind.allCases.map { sdk in SDKCallback.forms(of: sdk).map(\.kind.rawValue) }
        #expect(
            kinds == [
                ["current-account"], ["account-changed", "account-loaded"],
                ["wipe", "user-changed", "initial-check", "initial-check"],
            ])
        #expect(SDKCallback.forms(of: .ws1).contains(SDKCallback.initialCheck(error: "HubUnreachable").form))
        #expect(!SDKCallback.forms(of: .msal).contains(SDKCallback.accountLoaded("cou1").form))
        #expect(SDKCallback.forms(of: .msalAndroid).contains(SDKCallback.accountLoaded(nil).form))
    }
}

extension CheckResultTests {
    static let a = BrokerAccount(user: "cou1"), b = BrokerAccount(user: "cou2")

    @Test func eachSDKModelsAnswerIsOneResult() {
        #expect(
            CheckResult(MSALAccountRule.CurrentAccount(current: Self.b, previous: Self.a))
                == CheckResult(
                    callbacks: [.currentAccount(current: "cou2", previous: "cou1")], user: "cou2", previous: "cou1"))
        #expect(
            CheckResult([.accountChanged(prior: Self.a, current: nil), .accountLoaded(nil)])
                == CheckResult(
                    callbacks: [.accountChanged(prior: "cou1", current: nil), .accountLoaded(nil)], user: nil))
        #expect(
            CheckResult(
                [
                    .deleteDataKeys, .callback(.wipe), .callback(.initialCheck(error: "sharedDeviceNotCheckedOut")),
                    .block,
                ],
                session: Session(state: .checkedIn, generation: 2))
                == CheckResult(
                    callbacks: [.wipe, .initialCheck(error: "sharedDeviceNotCheckedOut")], user: nil, blocked: true,
                    keysDeleted: true))
        #expect(
            CheckResult([.callback(.initialCheck(error: "HubUnreachable")), .block], session: nil)
                == CheckResult(
                    callbacks: [.initialCheck(error: "HubUnreachable")], user: nil, blocked: true,
                    failure: "HubUnreachable"))
    }

    /// A check that was no opportunity tells the app nothing, whatever it carries.
    @Test func aCheckThatDidNotLookChangesNothing() {
        var app = AppModel(policy: .wipeAll, user: "cou1")
        var result = CheckResult(callbacks: [.wipe], user: nil)
        result.looked = false
        #expect(app.heard(result).isEmpty && app.user == "cou1")
        #expect(app.heard(.noOpportunity).isEmpty && app.user == "cou1")
    }
}
