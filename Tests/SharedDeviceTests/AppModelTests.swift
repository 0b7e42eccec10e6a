import SharedDevice
import Testing

/// What an app does when its SDK reports a change (Docs/behaviour.md §4–§8).
@Suite struct AppModelTests {
    static let a = BrokerAccount(user: "cou1"), b = BrokerAccount(user: "cou2")

    @Test(
        arguments: [
            // (user before, MSAL result, user after, cleanup of, reason)
            ("cou1", MSALAccountRule.CurrentAccount(current: b, previous: a), "cou2", "cou1", "user-changed"),
            ("cou1", MSALAccountRule.CurrentAccount(current: nil, previous: a), nil, "cou1", "sign-out"),
            (nil, MSALAccountRule.CurrentAccount(current: a, previous: nil), "cou1", nil, nil),
            ("cou1", MSALAccountRule.CurrentAccount(current: a, previous: a), "cou1", nil, nil),
            (nil, MSALAccountRule.CurrentAccount(current: nil, previous: nil), nil, nil, nil),
        ] as [(String?, MSALAccountRule.CurrentAccount, String?, String?, String?)])
    func anMSALAppCleansUpForThePreviousUserWhenTheUserChanged(
        before: String?, result: MSALAccountRule.CurrentAccount, after: String?, cleaned: String?, reason: String?
    ) {
        var app = AppModel(policy: .wipeAll, user: before)
        let reaction = app.heard(CheckResult(result)).first ?? .nothing
        #expect(app.user == after)
        #expect(reaction.cleanup?.previousUser == cleaned && reaction.cleanup?.reason.description == reason)
        #expect(reaction.cleanup.map { $0.currentUser == after && $0.policy == .wipeAll } ?? true)
    }

    @Test func androidCleansUpOnAccountChangedOnly() {
        var app = AppModel(policy: .cacheCommon, user: "cou1")
        #expect(app.heard(CheckResult([.accountLoaded(Self.a)])).isEmpty)
        let reactions = app.heard(CheckResult([.accountChanged(prior: Self.a, current: nil), .accountLoaded(nil)]))
        #expect(
            reactions.map(\.cleanup)
                == [CleanupJob(previousUser: "cou1", currentUser: nil, reason: .told(.signOut), policy: .cacheCommon)])
        #expect(app.user == nil)
    }

    /// Killed after the SDK stored the change and before the app cleaned up: the next launch
    /// reports only `account-loaded`, and the app still sees that its user is gone.
    @Test func androidActsOnAnAccountLoadedThatIsNotItsUser() {
        var app = AppModel(policy: .wipeAll, user: "cou1")
        #expect(
            app.heard(CheckResult([.accountLoaded(nil)])).map(\.cleanup)
                == [CleanupJob(previousUser: "cou1", currentUser: nil, reason: .told(.signOut), policy: .wipeAll)])
        #expect(app.user == nil && app.heard(CheckResult([.accountLoaded(nil)])).isEmpty)
    }

    /// A corrupt stored value reports `account-changed(none, current)`: the app still knows
    /// whose data it holds, and cleans it.
    @Test func androidWithACorruptStoredValueStillCleansTheAppsOwnUser() {
        var app = AppModel(policy: .wipeAll, user: "cou1")
        let reactions = app.heard(CheckResult([.accountChanged(prior: nil, current: Self.b), .accountLoaded(Self.b)]))
        #expect(reactions.map(\.cleanup?.previousUser) == ["cou1"] && app.user == "cou2")
    }

    @Test(
        arguments: [
            // (effects, session the hub answered, user after, cleanups)
            (
                [WorkspaceOneSessionRule.Effect.deleteDataKeys, .callback(.wipe), .callback(.userChanged)],
                Session(state: .checkedOut, user: "cou2", generation: 3), "cou2", ["wipe"]
            ),
            ([.deleteDataKeys, .callback(.wipe), .block], Session(state: .checkedIn, generation: 2), nil, ["wipe"]),
            (
                [.callback(.initialCheck(error: nil))], Session(state: .checkedOut, user: "cou1", generation: 1),
                "cou1", []
            ),
            (
                [
                    .deleteDataKeys, .callback(.wipe), .callback(.initialCheck(error: "sharedDeviceNotCheckedOut")),
                    .block,
                ],
                Session(state: .checkedIn, generation: 2), nil, ["wipe"]
            ),
        ] as [([WorkspaceOneSessionRule.Effect], Session, String?, [String])])
    func aWorkspaceOneAppFollowsItsCallbacks(
        effects: [WorkspaceOneSessionRule.Effect], session: Session, after: String?, cleanups: [String]
    ) {
        var app = AppModel(policy: .wipeAll, user: "cou1")
        let reactions = app.heard(CheckResult(effects, session: session))
        #expect(app.user == after)
        #expect(reactions.compactMap(\.cleanup?.reason.description) == cleanups)
        #expect(reactions.compactMap(\.cleanup?.previousUser).allSatisfy { $0 == "cou1" })
    }

    @Test func aFirstWorkspaceOneLaunchAdoptsTheUserWithoutCleaning() {
        var app = AppModel(policy: .wipeAll)
        let reactions = app.heard(
            CheckResult(
                [.callback(.initialCheck(error: nil))],
                session: Session(state: .checkedOut, user: "cou1", generation: 1)))
        #expect(reactions.allSatisfy { $0.cleanup == nil } && app.user == "cou1")
    }

    @Test func keepAllTakesItsFirstUserThenIgnoresEveryChange() {
        var app = AppModel(policy: .keepAll)
        #expect(app.userChanged(to: "cou1", reason: .told(.userChanged)) == .nothing && app.user == "cou1")
        #expect(app.userChanged(to: "cou2", reason: .told(.userChanged)) == .nothing)
        #expect(app.heard(CheckResult(MSALAccountRule.CurrentAccount(current: nil, previous: Self.a))).isEmpty)
        #expect(app.user == "cou1")
    }

    @Test func retainPreferencesReappliesAReturningUsersPreferences() {
        var app = AppModel(policy: .retainPreferences, user: "cou1")
        let toCou2 = app.userChanged(to: "cou2", reason: .told(.userChanged)) { $0 == "cou1" }
        #expect(!toCou2.reappliesPreferences && !app.preferencesApplied)
        let back = app.userChanged(to: "cou1", reason: .told(.userChanged)) { $0 == "cou1" }
        #expect(back.reappliesPreferences && app.preferencesApplied && back.cleanup?.previousUser == "cou2")
        var wipeAll = AppModel(policy: .wipeAll, user: "cou2")
        #expect(!wipeAll.userChanged(to: "cou1", reason: .told(.userChanged)) { _ in true }.reappliesPreferences)
    }

    @Test func aHookRunsWithBothUsersAndTheReason() {
        var app = AppModel(policy: .hook(command: "./clean.sh"), user: "cou1")
        let job = app.userChanged(to: "cou2", reason: .told(.userChanged)).cleanup
        #expect(
            job
                == CleanupJob(
                    previousUser: "cou1", currentUser: "cou2", reason: .told(.userChanged),
                    policy: .hook(command: "./clean.sh")))
    }
}

extension AppModelTests {
    /// The SDK persisted (cou2, cou1) and the app died before it cleaned: at the next launch the
    /// SDK says (cou2, cou2), and the app, still acting as cou1, cleans up anyway.
    @Test func aChangeTheSDKAlreadyReportedIsStillActedOnAfterACrash() {
        var app = AppModel(policy: .wipeAll, user: "cou1")
        let reactions = app.heard(CheckResult(MSALAccountRule.CurrentAccount(current: Self.b, previous: Self.b)))
        #expect(reactions.map(\.cleanup?.previousUser) == ["cou1"] && app.user == "cou2")
    }
}

extension AppModelTests {
    static let signOut = CleanupJob(previousUser: "cou1", currentUser: nil, reason: .told(.signOut), policy: .wipeAll)

    @Test func aCleanupLeftUnfinishedIsResumedAndTheAppActsForTheLastJobsCurrentUser() {
        var app = AppModel(policy: .wipeAll, user: "cou1")
        let switched = CleanupJob(
            previousUser: "cou2", currentUser: "cou3", reason: .told(.userChanged), policy: .wipeAll)
        app.resume([Self.signOut, switched])
        #expect(app.user == "cou3" && app.unfinishedCleanups == [Self.signOut, switched])
        app.resume([])
        #expect(app.user == "cou3", "an empty journal changes nothing")
    }

    /// A cleanup stays unfinished until one ends clean (Docs/behaviour.md §8): a failed one is
    /// run again; a clean one, whichever it is, settles them all, since no other user's data is left.
    @Test(
        arguments: [
            // (users the app changes to, whether each change's cleanup ended clean, unfinished cleanups' previous users)
            (["cou2"], [true], []),
            (["cou2"], [false], ["cou1"]),
            (["cou2", "cou3"], [false, false], ["cou1", "cou2"]),
            (["cou2", "cou3"], [false, true], []),
            (["cou2", nil], [true, false], ["cou2"]),
        ] as [([String?], [Bool], [String])])
    func aFailedCleanupStaysUnfinishedUntilACleanOne(changes: [String?], clean: [Bool], unfinished: [String]) throws {
        var app = AppModel(policy: .wipeAll, user: "cou1")
        for (user, ended) in zip(changes, clean) {
            let job = try #require(app.userChanged(to: user, reason: .told(.userChanged)).cleanup)
            #expect(app.unfinishedCleanups.last == job, "journaled from the change on")
            app.cleanupEnded(job, clean: ended)
        }
        #expect(app.unfinishedCleanups.map(\.previousUser) == unfinished)
    }

    @Test func noChangeMakesNoUnfinishedCleanup() {
        var app = AppModel(policy: .keepAll, user: "cou1")
        _ = app.userChanged(to: "cou2", reason: .told(.userChanged))
        var fresh = AppModel(policy: .wipeAll)
        _ = fresh.userChanged(to: "cou1", reason: .check(.signIn))
        #expect(app.unfinishedCleanups.isEmpty && fresh.unfinishedCleanups.isEmpty)
    }
}
