import Foundation
import SharedDevice
import Testing

/// Docs/behaviour.md §1, §2, rule by rule.
@Suite struct HubModelTests {
    static let stage = DirectoryUser(name: "stage", role: .staging)
    static let single = DirectoryUser(name: "solo-stage", role: .staging, staging: .singleUser)
    static let cou1 = DirectoryUser(name: "cou1")
    static let cou2 = DirectoryUser(name: "cou2")
    static let changed = NotifyCenter.accountChanged

    /// What the brokers do at an account change: the iOS broker's post at `state`, then the
    /// Android broker's broadcast.
    static func announced(state: UInt64) -> [HubModel.Effect] {
        [.post(name: changed, state: state), .broadcast(action: AndroidBroker.accountChangedAction)]
    }

    /// A shared device, enrolled, checked in.
    static func enrolled(_ policy: HubModel.Policy = .init()) throws -> HubModel {
        var hub = HubModel(policy: policy)
        try hub.enroll(as: stage)
        return hub
    }

    static func checkedOut(_ user: DirectoryUser = cou1, _ policy: HubModel.Policy = .init()) throws -> HubModel {
        var hub = try enrolled(policy)
        _ = try hub.checkOut(as: user)
        return hub
    }

    // MARK: enrollment

    @Test func enrollingByAStagingUserChecksTheDeviceIn() throws {
        var hub = HubModel()
        #expect(hub.session == .unenrolled)
        try hub.enroll(as: Self.stage)
        #expect(hub.session == Session(state: .checkedIn, user: nil, generation: 0))
        #expect(hub.isShared && hub.deviceMode == "shared")
    }

    @Test(arguments: [
        (nil as DirectoryUser?, DeviceError.badCredentials),
        (cou1, .notStagingUser),
    ])
    func enrollmentIsRefused(user: DirectoryUser?, error: DeviceError) {
        var hub = HubModel()
        #expect(throws: error) { try hub.enroll(as: user) }
        #expect(hub.session == .unenrolled)
    }

    @Test func enrollingTwiceIsRefused() throws {
        var hub = try Self.enrolled()
        #expect(throws: DeviceError.alreadyEnrolled) { try hub.enroll(as: Self.stage) }
    }

    // MARK: check-out and check-in

    @Test func checkOutStartsASessionAndCheckInEndsItWithAPost() throws {
        var hub = try Self.enrolled()
        #expect(try hub.checkOut(as: Self.cou1) == [])
        #expect(hub.session == Session(state: .checkedOut, user: "cou1", generation: 1))
        #expect(try hub.checkIn() == Self.announced(state: 2))
        #expect(hub.session == Session(state: .checkedIn, user: nil, generation: 2))
        #expect(hub.notify.state(of: Self.changed) == 2)
    }

    @Test func anyUserMayCheckOutTheStagingUserToo() throws {
        var hub = try Self.enrolled()
        _ = try hub.checkOut(as: Self.stage)
        #expect(hub.session.user == "stage")
    }

    @Test func signInAlsoPostsWhenBroadcastOnSignIn() throws {
        var hub = try Self.enrolled(.init(broadcastOnSignIn: true))
        #expect(try hub.checkOut(as: Self.cou1) == Self.announced(state: 1))
        #expect(hub.notify.state(of: Self.changed) == 1)
    }

    /// The first failing rule, in the order the contract lists them.
    @Test(arguments: [
        ("offline", nil as DirectoryUser?, DeviceError.offline),
        ("offline", cou1, .offline),
        ("unenrolled", nil, .badCredentials),
        ("unenrolled", cou1, .notEnrolled),
        ("checked-out", cou2, .alreadyCheckedOut),
        ("checked-out", nil, .badCredentials),
    ])
    func checkOutIsRefused(situation: String, user: DirectoryUser?, error: DeviceError) throws {
        var hub: HubModel
        switch situation {
        case "offline":
            hub = try Self.enrolled()
            hub.setOnline(false)
        case "unenrolled": hub = HubModel()
        default: hub = try Self.checkedOut()
        }
        let before = hub
        #expect(throws: error) { try hub.checkOut(as: user) }
        #expect(hub == before)
    }

    @Test func checkInIsRefusedWhileLockedUntilUnlocked() throws {
        var hub = try Self.checkedOut()
        hub.lock()
        #expect(throws: DeviceError.locked) { try hub.checkIn() }
        #expect(hub.session.state == .checkedOut)
        #expect(throws: DeviceError.badCredentials) { try hub.unlock(as: Self.cou2) }
        #expect(try hub.unlock(as: Self.cou1) == .app)
        _ = try hub.checkIn()
        #expect(hub.session.state == .checkedIn)
    }

    @Test func checkInWhenNotCheckedOutIsRefused() throws {
        var hub = try Self.enrolled()
        #expect(throws: DeviceError.notCheckedOut) { try hub.checkIn() }
    }

    @Test func singleUserStagingAssignsTheDeviceForGood() throws {
        var hub = HubModel()
        try hub.enroll(as: Self.single)
        #expect(!hub.isShared && hub.deviceMode == "personal")
        _ = try hub.checkOut(as: Self.cou1)
        #expect(hub.assignedUser == "cou1")
        #expect(throws: DeviceError.notShared) { try hub.checkIn() }
        #expect(throws: DeviceError.notShared) { try hub.signOut(homeAccountID: HubModel.homeAccountID(of: "cou1")) }
        #expect(hub.session.user == "cou1")
    }

    @Test func aDeviceSetUpAsNotSharedIsPersonal() throws {
        let hub = try Self.enrolled(.init(shared: false))
        #expect(hub.deviceMode == "personal")
    }

    // MARK: offline unlock

    @Test(arguments: [
        (true, true, HubModel.ForegroundAfterUnlock.app),
        (false, true, .hubThenApp),
        (false, false, .hub),
    ])
    func unlockSwitchesToTheHubWhenOffline(online: Bool, checkedOut: Bool, expected: HubModel.ForegroundAfterUnlock)
        throws
    {
        var hub = checkedOut ? try Self.checkedOut() : try Self.enrolled()
        hub.setOnline(online)
        hub.lock()
        #expect(try hub.unlock(as: Self.cou1) == expected)
        #expect(!hub.locked)
        #expect(hub.foreground == (expected == .hub ? .hub : .app))
    }

    // MARK: passcode policy and user information

    @Test(arguments: [false, true])
    func checkOutSetsAPasscodeUnderThePolicy(policy: Bool) throws {
        var hub = try Self.checkedOut(Self.cou1, .init(passcode: policy))
        #expect(hub.passcodeSet == policy)
        _ = try hub.checkIn()
        #expect(!hub.passcodeSet)
    }

    @Test func userInfoIsTheCheckedOutUsersDirectoryEntry() throws {
        var hub = try Self.enrolled()
        #expect(throws: DeviceError.notCheckedOut) { try hub.userInfo() }
        _ = try hub.checkOut(as: Self.cou2)
        #expect(try hub.userInfo() == Self.cou2)
        try hub.removeAccount()
        #expect(throws: DeviceError.notCheckedOut) { try hub.userInfo() }
    }

    // MARK: enterprise wipe

    @Test func enterpriseWipeEndsTheSessionAndUnenrolls() throws {
        var hub = try Self.checkedOut()
        #expect(try hub.enterpriseWipe() == Self.announced(state: 2))
        #expect(hub.session == Session(state: .unenrolled, user: nil, generation: 2))
        #expect(hub.staging == nil)
        #expect(throws: DeviceError.notEnrolled) { try hub.enterpriseWipe() }
        try hub.enroll(as: Self.stage)
        _ = try hub.checkOut(as: Self.cou2)
        #expect(hub.session.generation == 3)
    }

    // MARK: broker

    @Test func globalSignInAndSignOutAreCheckOutAndCheckIn() throws {
        var hub = try Self.enrolled()
        #expect(try hub.signIn(as: Self.cou1) == [])
        #expect(hub.currentAccount == "cou1")
        #expect(throws: DeviceError.alreadySignedIn) { try hub.signIn(as: Self.cou2) }
        #expect(throws: DeviceError.accountMismatch) {
            try hub.signOut(homeAccountID: HubModel.homeAccountID(of: "cou2"))
        }
        #expect(
            try hub.signOut(homeAccountID: HubModel.homeAccountID(of: "COU1")) == Self.announced(state: 2))
        #expect(throws: DeviceError.noCurrentAccount) {
            try hub.signOut(homeAccountID: HubModel.homeAccountID(of: "cou1"))
        }
    }

    @Test(arguments: [
        ("checked-out", nil as DirectoryUser?, DeviceError.alreadySignedIn),
        ("checked-in", nil, .badCredentials),
        ("offline", cou1, .offline),
        ("unenrolled", cou1, .notEnrolled),
    ])
    func signInIsRefused(situation: String, user: DirectoryUser?, error: DeviceError) throws {
        var hub: HubModel
        switch situation {
        case "checked-out": hub = try Self.checkedOut()
        case "checked-in": hub = try Self.enrolled()
        case "offline":
            hub = try Self.enrolled()
            hub.setOnline(false)
        default: hub = HubModel()
        }
        #expect(throws: error) { try hub.signIn(as: user) }
    }

    @Test func removeAccountEndsTheSessionWithoutAPost() throws {
        var hub = try Self.checkedOut()
        try hub.removeAccount()
        #expect(hub.session == Session(state: .checkedIn, user: nil, generation: 2))
        #expect(hub.notify.state(of: Self.changed) == 0)
        #expect(throws: DeviceError.noCurrentAccount) { try hub.removeAccount() }
    }

    @Test func tokensAreBoundToTheSessionGeneration() throws {
        var hub = try Self.checkedOut()
        let id = HubModel.homeAccountID(of: "cou1")
        let token = try hub.acquireTokenSilent(homeAccountID: id)
        #expect(token.generation == 1 && hub.isCurrent(tokenGeneration: token.generation))
        _ = try hub.signOut(homeAccountID: id)
        #expect(!hub.isCurrent(tokenGeneration: token.generation))
        // A request that raced the sign-out fails, never returning a token of the ended session.
        #expect(throws: DeviceError.noCurrentAccount) { try hub.acquireTokenSilent(homeAccountID: id) }
        _ = try hub.signIn(as: Self.cou2)
        #expect(throws: DeviceError.accountMismatch) { try hub.acquireTokenSilent(homeAccountID: id) }
    }

    @Test func theGenerationOnlyGrows() throws {
        var hub = try Self.enrolled()
        var seen: [UInt64] = [hub.session.generation]
        for user in [Self.cou1, Self.cou2, Self.stage] {
            _ = try hub.checkOut(as: user)
            seen.append(hub.session.generation)
            _ = try hub.checkIn()
            seen.append(hub.session.generation)
        }
        #expect(seen == Array(0...6))
    }

    // MARK: Authenticator as the broker

    static let authenticator = HubModel.Policy(broker: .authenticator)

    /// Workspace ONE's shift-worker guide: apps that need a login "are not logged out
    /// automatically when the shared device is checked in".
    @Test func withAuthenticatorACheckInOrCheckOutLeavesMSALsAccountAlone() throws {
        var hub = try Self.checkedOut(Self.cou1, Self.authenticator)
        #expect(hub.currentAccount == nil, "a check-out signs nobody in to MSAL")
        #expect(try hub.signIn(as: Self.cou1) == [])
        #expect(hub.broker == BrokerSession(account: "cou1", generation: 2))
        #expect(try hub.checkIn() == [], "nothing is posted")
        #expect(hub.session == Session(state: .checkedIn, user: nil, generation: 3))
        #expect(hub.currentAccount == "cou1", "MSAL's account outlives the worker's Hub session")
        #expect(hub.notify.state(of: Self.changed) == 0)
        _ = try hub.checkOut(as: Self.cou2)
        #expect(hub.currentAccount == "cou1" && hub.session.user == "cou2")
    }

    @Test func withAuthenticatorAnAppsSignInAndSignOutChangeMSALsAccountOnly() throws {
        var hub = try Self.checkedOut(Self.cou1, Self.authenticator)
        _ = try hub.signIn(as: Self.cou1)
        let token = try hub.acquireTokenSilent(homeAccountID: HubModel.homeAccountID(of: "cou1"))
        _ = try hub.checkIn()
        #expect(hub.isCurrent(tokenGeneration: token.generation), "the Hub's session is not MSAL's")
        #expect(try hub.signOut(homeAccountID: HubModel.homeAccountID(of: "cou1")) == Self.announced(state: 4))
        #expect(hub.broker == BrokerSession(account: nil, generation: 4))
        #expect(hub.session == Session(state: .checkedIn, user: nil, generation: 3), "the session is the Hub's")
        #expect(!hub.isCurrent(tokenGeneration: token.generation))
        _ = try hub.signIn(as: Self.cou2)
        try hub.removeAccount()
        #expect(hub.broker == BrokerSession(account: nil, generation: 6) && hub.session.generation == 3)
        #expect(hub.notify.state(of: Self.changed) == 4, "a removal posts nothing")
    }

    @Test func withAuthenticatorAWipeEndsBothAndPostsOnlyForAnAccount() throws {
        var hub = try Self.checkedOut(Self.cou1, Self.authenticator)
        #expect(try hub.enterpriseWipe() == [], "no account was signed in")
        try hub.enroll(as: Self.stage)
        _ = try hub.checkOut(as: Self.cou1)
        _ = try hub.signIn(as: Self.cou1)
        #expect(try hub.enterpriseWipe() == Self.announced(state: 6), "the session ended at 5, the account at 6")
        #expect(hub.session.state == .unenrolled && hub.currentAccount == nil)
    }

    /// The key service is the console's: it serves the Hub's worker, whoever MSAL has.
    @Test func withAuthenticatorTheKeyServiceServesTheHubsWorker() throws {
        var hub = try Self.checkedOut(Self.cou2, Self.authenticator)
        _ = try hub.signIn(as: Self.cou1)
        #expect(try hub.externalKey { [1] }.user == "cou2")
    }

    @Test func theStateSurvivesEncoding() throws {
        let hub = try Self.checkedOut()
        let decoded = try JSONDecoder().decode(HubModel.self, from: JSONEncoder().encode(hub))
        #expect(decoded == hub)
    }
}

/// Docs/behaviour.md §8: the off-device key service of `external` records.
@Suite struct KeyServiceTests {
    @Test func onlyTheCheckedOutUserGetsAKeyAndAlwaysTheSameOne() throws {
        var hub = try HubModelTests.enrolled()
        var made = 0
        let make: () -> [UInt8] = {
            made += 1
            return [UInt8(made)]
        }
        #expect(throws: DeviceError.notCheckedOut) { try hub.externalKey(makeKey: make) }
        _ = try hub.checkOut(as: HubModelTests.cou1)
        #expect(try hub.externalKey(makeKey: make) == ("cou1", [1]))
        #expect(try hub.externalKey(makeKey: make) == ("cou1", [1]))
        hub.setOnline(false)
        #expect(throws: DeviceError.offline) { try hub.externalKey(makeKey: make) }
        hub.setOnline(true)
        _ = try hub.checkIn()
        _ = try hub.checkOut(as: HubModelTests.cou2)
        #expect(try hub.externalKey(makeKey: make) == ("cou2", [2]))
    }
}

/// Where a scenario can have the hub crash in a change (Docs/behaviour.md §1).
@Suite struct HubCrashPointTests {
    static let darwin = HubModel.Effect.post(name: NotifyCenter.accountChanged, state: 2)
    static let android = HubModel.Effect.broadcast(action: AndroidBroker.accountChangedAction)

    @Test(arguments: [
        ([HubModel.Effect](), [HubCrashPoint.beforeCommit, .afterCommit]),
        ([darwin, android], [.beforeCommit, .afterCommit, .afterIOSPost, .afterPosts]),
        ([android], [.beforeCommit, .afterCommit, .afterPosts]),
    ])
    func theCrashPointsAChangePasses(effects: [HubModel.Effect], points: [HubCrashPoint]) {
        #expect(HubCrashPoint.passed(by: effects) == points)
    }

    @Test func aCheckInPassesEveryPointAndACheckOutOnlyTheCommitByDefault() throws {
        var hub = HubModel()
        _ = try hub.enroll(as: DirectoryUser(name: "stage", role: .staging))
        let checkOut = try hub.checkOut(as: DirectoryUser(name: "cou1"))
        #expect(HubCrashPoint.passed(by: checkOut) == [.beforeCommit, .afterCommit])
        #expect(HubCrashPoint.passed(by: try hub.checkIn()) == HubCrashPoint.allCases)
        #expect(HubCrashPoint.allCases.filter(\.isAmongThePosts) == [.afterIOSPost, .afterPosts])
    }
}
