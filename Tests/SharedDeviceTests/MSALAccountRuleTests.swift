import SharedDevice
import Testing

/// Docs/behaviour.md §4, §5, every example.
@Suite struct MSALAccountRuleTests {
    static let a = BrokerAccount(user: "cou1")
    static let b = BrokerAccount(user: "cou2")
    static let c = BrokerAccount(user: "stage")

    /// Each step: what the broker answers at the check; the expected (current, previous).
    @Test(
        arguments: [
            ("first call", [[a]], "current-account(cou1,none)"),
            ("no change", [[a], [a]], "current-account(cou1,cou1)"),
            ("after a switch", [[a], [b]], "current-account(cou2,cou1)"),
            ("after sign-out", [[a], []], "current-account(none,cou1)"),
            ("after sign-out, again", [[a], [], []], "current-account(none,none)"),
            // A→B→C while away: the app only ever sees A, then C.
            ("A→B→C while away", [[a], [c]], "current-account(stage,cou1)"),
            // A→none→A while away is invisible.
            ("A→none→A while away", [[a], [a]], "current-account(cou1,cou1)"),
        ] as [(String, [[BrokerAccount]], String)])
    func getCurrentAccountReturnsCurrentAndPrevious(story: String, answers: [[BrokerAccount]], last: String) throws {
        var client = MSALAccountRule()
        var result: MSALAccountRule.CurrentAccount?
        for answer in answers { result = try client.getCurrentAccount(.success(answer)) }
        #expect(result?.callback.description == last, "\(story)")
        #expect(client.lastSeen == answers.last?.first)
    }

    /// Two calls in flight across A→B (a post and a return to the foreground at once): each read
    /// the last-seen account when it began, so both report the change; one begun after the first
    /// ended does not.
    @Test func twoCallsInFlightBothReportTheChange() throws {
        var client = MSALAccountRule(lastSeen: Self.a)
        let first = client.beginCall()
        let second = client.beginCall()
        #expect(try client.finish(first, .success([Self.b])).callback.description == "current-account(cou2,cou1)")
        #expect(try client.finish(second, .success([Self.b])).callback.description == "current-account(cou2,cou1)")
        let third = client.beginCall()
        #expect(try client.finish(third, .success([Self.b])).callback.description == "current-account(cou2,cou2)")
        #expect(client.lastSeen == Self.b)
    }

    /// A call that fails writes nothing, even with another call in flight.
    @Test func aFailedCallInFlightWritesNothing() throws {
        var client = MSALAccountRule(lastSeen: Self.a)
        let failing = client.beginCall()
        let other = client.beginCall()
        #expect(throws: BrokerError.ambiguousAccount) { try client.finish(failing, .success([Self.a, Self.b])) }
        #expect(client.lastSeen == Self.a)
        #expect(try client.finish(other, .success([])).callback.description == "current-account(none,cou1)")
    }

    @Test func aChangeOfUserIsCaseInsensitiveOnTheHomeAccountID() throws {
        var client = MSALAccountRule(
            lastSeen: BrokerAccount(homeAccountID: Self.a.homeAccountID.uppercased(), username: "cou1"))
        #expect(try !client.getCurrentAccount(.success([Self.a])).userChanged)
        #expect(try client.getCurrentAccount(.success([Self.b])).userChanged)
        #expect(try client.getCurrentAccount(.success([])).userChanged)
        #expect(try !client.getCurrentAccount(.success([])).userChanged)
    }

    @Test(arguments: [
        (
            Result<[BrokerAccount], BrokerError>.failure(.refused(.offline)),
            BrokerError.refused(.offline)
        ),
        (.success([a, b]), .ambiguousAccount),
    ])
    func anErrorWritesNothing(answer: Result<[BrokerAccount], BrokerError>, error: BrokerError) throws {
        var client = MSALAccountRule(lastSeen: Self.a)
        #expect(throws: error) { try client.getCurrentAccount(answer) }
        #expect(client.lastSeen == Self.a)
        var android = AndroidMSALAccountRule(stored: .account(Self.a))
        #expect(throws: error) { try android.getCurrentAccount(answer) }
        #expect(android.stored == .account(Self.a))
    }

    // MARK: Android

    @Test(arguments: [
        (AndroidMSALAccountRule.Stored.none, [] as [BrokerAccount], ["account-loaded(none)"]),
        (.none, [a], ["account-changed(none,cou1)", "account-loaded(cou1)"]),
        (.account(a), [a], ["account-loaded(cou1)"]),
        (
            .account(BrokerAccount(homeAccountID: a.homeAccountID.uppercased(), username: "cou1")), [a],
            ["account-loaded(cou1)"]
        ),
        (.account(a), [b], ["account-changed(cou1,cou2)", "account-loaded(cou2)"]),
        (.account(a), [], ["account-changed(cou1,none)", "account-loaded(none)"]),
        (.corrupt, [a], ["account-changed(none,cou1)", "account-loaded(cou1)"]),
        (.corrupt, [], ["account-changed(none,none)", "account-loaded(none)"]),
    ])
    func androidCallsBack(stored: AndroidMSALAccountRule.Stored, answer: [BrokerAccount], expected: [String]) throws {
        var client = AndroidMSALAccountRule(stored: stored)
        #expect(try client.getCurrentAccount(.success(answer)).map(\.description) == expected)
        #expect(client.stored == (answer.first.map { .account($0) } ?? .none))
    }

    @Test func androidOwnSignInAndSignOutAreRemembered() throws {
        var client = AndroidMSALAccountRule()
        client.signedInHere(as: Self.a)
        #expect(try client.getCurrentAccount(.success([Self.a])).map(\.description) == ["account-loaded(cou1)"])
        client.signedOutHere()
        #expect(try client.getCurrentAccount(.success([])).map(\.description) == ["account-loaded(none)"])
    }
}
