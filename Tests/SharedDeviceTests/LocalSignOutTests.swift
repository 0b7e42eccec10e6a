import SharedDevice
import Testing

/// Docs/behaviour.md §2, "Sign-out on a personal device": the account leaves the app that signed
/// out, not the broker; the app sees it again once it signs in again.
@Suite struct LocalSignOutTests {
    static let cou1 = BrokerAccount(user: "cou1")
    static let cou2 = BrokerAccount(user: "cou2")

    @Test(arguments: [
        (nil as BrokerAccount?, [cou1], [cou1]),
        (cou1, [cou1], []),
        (cou1, [cou2], [cou2]),
        (cou1, [], []),
        (BrokerAccount(homeAccountID: "COU1.SDLAB-TENANT", username: "cou1"), [cou1], []),
    ])
    func theAppSeesTheBrokersAccountsButTheOneItSignedOutOf(
        signedOut: BrokerAccount?, broker: [BrokerAccount], seen: [BrokerAccount]
    ) {
        #expect(LocalSignOut(account: signedOut).visible(broker) == seen)
    }

    @Test func aSignInGivesTheAccountBack() {
        var local = LocalSignOut()
        local.signedOut(Self.cou1)
        #expect(local.visible([Self.cou1]).isEmpty)
        local.signedIn()
        #expect(local.visible([Self.cou1]) == [Self.cou1])
    }

    /// Over the app's rule: after its own sign-out the app's next check reports the change,
    /// once, while the broker still holds the account.
    @Test func theAppsNextCheckReportsItsOwnSignOut() throws {
        var rule = MSALAccountRule(lastSeen: Self.cou1)
        var local = LocalSignOut()
        local.signedOut(Self.cou1)
        let first = try rule.getCurrentAccount(.success(local.visible([Self.cou1])))
        #expect(first == .init(current: nil, previous: Self.cou1) && first.userChanged)
        let again = try rule.getCurrentAccount(.success(local.visible([Self.cou1])))
        #expect(!again.userChanged)
    }
}
