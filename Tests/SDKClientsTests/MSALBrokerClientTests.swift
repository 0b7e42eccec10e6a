import DBusKit
import DeviceContract
import DeviceProcesses
import DeviceTestKit
import Foundation
import SDKClients
import SharedDevice
import TestSupport
import Testing

/// MSAL iOS (Docs/behaviour.md §2–§4) against the real hub on a private bus.
@Suite(.tags(.device), .devicesWanted, .serialized, .timeLimit(.minutes(3)))
struct MSALBrokerClientTests {
    static func client(_ device: InProcessDevice, app: String = "mail") async throws -> MSALBrokerClient {
        MSALBrokerClient(
            connection: try await device.connection(), clientID: app, keychain: try device.keychain(app))
    }

    /// The callback an app records for a successful call, or the error's label.
    static func current(_ client: MSALBrokerClient) async throws -> String {
        switch await client.getCurrentAccount() {
        case .success(let result): result.callback.description
        case .failure(let error): "error \(error.label)"
        }
    }

    static func lastSeenFile(_ device: InProcessDevice, app: String = "mail") -> String {
        RunFolder.container(of: app, in: device.directory) + "/keychain/msal-last-seen-account.json"
    }

    @Test func currentAccountAcrossFirstCallNoChangeSwitchAndSignOut() async throws {
        try await InProcessDevice.with { device in
            try await device.enrollAndCheckOut("cou1")
            let client = try await Self.client(device)
            #expect(try await Self.current(client) == "current-account(cou1,none)")
            #expect(try await Self.current(client) == "current-account(cou1,cou1)")
            try await device.checkIn()
            try await device.checkOut("cou2")
            #expect(try await Self.current(client) == "current-account(cou2,cou1)")
            try await device.checkIn()
            #expect(try await Self.current(client) == "current-account(none,cou2)")
            #expect(try await Self.current(client) == "current-account(none,none)")
        }
    }

    @Test func aSignOutSeenAfterTheFirstCallGivesNoneThenNone() async throws {
        try await InProcessDevice.with { device in
            try await device.enrollAndCheckOut("cou1")
            let client = try await Self.client(device)
            let first = try await client.getCurrentAccount().get()
            #expect(first.current == BrokerAccount(user: "cou1") && first.previous == nil && first.userChanged)
            try await device.checkIn()
            let signedOut = try await client.getCurrentAccount().get()
            #expect(
                signedOut.current == nil && signedOut.previous == BrokerAccount(user: "cou1") && signedOut.userChanged)
            let after = try await client.getCurrentAccount().get()
            #expect(after.current == nil && after.previous == nil && !after.userChanged)
        }
    }

    @Test func changesWhileTheAppWasNotCheckingCollapse() async throws {
        try await InProcessDevice.with { device in
            try await device.enrollAndCheckOut("cou1")
            let client = try await Self.client(device)
            #expect(try await Self.current(client) == "current-account(cou1,none)")
            // A → none → A: invisible.
            try await device.checkIn()
            try await device.checkOut("cou1")
            #expect(try await Self.current(client) == "current-account(cou1,cou1)")
            // A → none → B → none → A… → B: one change.
            try await device.checkIn()
            try await device.checkOut("stage")
            try await device.checkIn()
            try await device.checkOut("cou2")
            #expect(try await Self.current(client) == "current-account(cou2,cou1)")
        }
    }

    @Test func theLastSeenAccountOutlivesTheClient() async throws {
        try await InProcessDevice.with { device in
            try await device.enrollAndCheckOut("cou1")
            #expect(try await Self.current(Self.client(device)) == "current-account(cou1,none)")
            let saved = try #require(FileIdentity(Self.lastSeenFile(device)))
            #expect(String(decoding: saved.contents, as: UTF8.self).contains("cou1.sdlab-tenant"))

            // A relaunch: a new client on a new connection, the same keychain.
            let relaunched = try await Self.client(device)
            #expect(try await Self.current(relaunched) == "current-account(cou1,cou1)")
            #expect(FileIdentity(Self.lastSeenFile(device)) == saved, "nothing changed: the keychain is not rewritten")

            try await device.checkIn()
            try await device.checkOut("cou2")
            #expect(try await Self.current(Self.client(device)) == "current-account(cou2,cou1)")
            #expect(try await Self.current(Self.client(device)) == "current-account(cou2,cou2)")
        }
    }

    @Test func anotherAppsKeychainIsItsOwn() async throws {
        try await InProcessDevice.with { device in
            try await device.enrollAndCheckOut("cou1")
            #expect(try await Self.current(Self.client(device, app: "mail")) == "current-account(cou1,none)")
            #expect(try await Self.current(Self.client(device, app: "notes")) == "current-account(cou1,none)")
        }
    }

    @Test func signInAndSignOutGoThroughTheBroker() async throws {
        try await InProcessDevice.with { device in
            try await device.enroll()
            let client = try await Self.client(device)
            let account = try await client.signIn(user: "cou1", password: "cou1")
            #expect(account == BrokerAccount(homeAccountID: "cou1.sdlab-tenant", username: "cou1"))
            #expect(try await device.session() == Session(state: .checkedOut, user: "cou1", generation: 1))
            #expect(try await Self.current(client) == "current-account(cou1,none)")

            // Global: another app sees the same account.
            #expect(try await Self.current(Self.client(device, app: "notes")) == "current-account(cou1,none)")

            try await client.signOut(homeAccountID: "cou1.sdlab-tenant")
            #expect(try await device.session() == Session(state: .checkedIn, user: nil, generation: 2))
            #expect(try await Self.current(client) == "current-account(none,cou1)")
        }
    }

    /// Docs/behaviour.md §2: on a personal device the sign-out is the app's own; the broker keeps
    /// the account for the other apps, and the app's next sign-in as that user gives it back.
    @Test func onAPersonalDeviceTheSignOutIsTheAppsAlone() async throws {
        try await InProcessDevice.with(policy: .init(shared: false)) { device in
            try await device.enrollAndCheckOut("cou1")
            let mail = try await Self.client(device)
            #expect(try await Self.current(mail) == "current-account(cou1,none)")
            try await mail.signOut(homeAccountID: "COU1.sdlab-tenant")
            #expect(try await Self.current(mail) == "current-account(none,cou1)")
            #expect(try await Self.current(Self.client(device, app: "notes")) == "current-account(cou1,none)")
            #expect(try await device.session() == Session(state: .checkedOut, user: "cou1", generation: 1))
            // The app's cache outlives its process.
            let relaunched = try await Self.client(device)
            #expect(try await relaunched.accounts().get().isEmpty)
            #expect(
                await refusal { try await relaunched.signOut(homeAccountID: "cou1.sdlab-tenant") }
                    == DeviceError.noCurrentAccount.name)
            #expect(
                await refusal { _ = try await relaunched.signIn(user: "cou2", password: "cou2") }
                    == DeviceError.alreadySignedIn.name, "the broker still has cou1")
            _ = try await relaunched.signIn(user: "cou1", password: "cou1")
            #expect(try await Self.current(relaunched) == "current-account(cou1,none)")
        }
    }

    @Test func signInAndSignOutErrors() async throws {
        try await InProcessDevice.with { device in
            let client = try await Self.client(device)
            #expect(
                await refusal { _ = try await client.signIn(user: "cou1", password: "cou1") }
                    == DeviceError.notEnrolled.name)
            try await device.enroll()
            #expect(
                await refusal { try await client.signOut(homeAccountID: "cou1.sdlab-tenant") }
                    == DeviceError.noCurrentAccount.name)
            #expect(
                await refusal { _ = try await client.signIn(user: "cou1", password: "wrong") }
                    == DeviceError.badCredentials.name)
            #expect(
                await refusal { _ = try await client.signIn(user: "nobody", password: "nobody") }
                    == DeviceError.badCredentials.name)
            _ = try await client.signIn(user: "cou1", password: "cou1")
            // Already signed in comes first, even with a bad password.
            #expect(
                await refusal { _ = try await client.signIn(user: "cou2", password: "cou2") }
                    == DeviceError.alreadySignedIn.name)
            #expect(
                await refusal { _ = try await client.signIn(user: "cou2", password: "wrong") }
                    == DeviceError.alreadySignedIn.name)
            #expect(try await device.session() == Session(state: .checkedOut, user: "cou1", generation: 1))
            try await client.signOut(homeAccountID: "cou1.sdlab-tenant")
            #expect(
                await refusal { try await client.signOut(homeAccountID: "cou1.sdlab-tenant") }
                    == DeviceError.noCurrentAccount.name)
            #expect(try await device.session() == Session(state: .checkedIn, user: nil, generation: 2))
        }
    }

    @Test func deviceInformation() async throws {
        try await InProcessDevice.with { device in
            let client = try await Self.client(device)
            #expect(try await client.deviceInformation() == DeviceInformation(deviceMode: "personal", generation: 0))
            try await device.enroll()
            #expect(try await client.deviceInformation() == DeviceInformation(deviceMode: "shared", generation: 0))
            try await device.checkOut("cou1")
            let information = try await client.deviceInformation()
            #expect(information == DeviceInformation(deviceMode: "shared", generation: 1))
            #expect(information.isSharedDevice)
        }
    }

    @Test func deviceInformationUnderThePasscodePolicyAndOnAPersonalDevice() async throws {
        try await InProcessDevice.with(policy: .init(passcode: true)) { device in
            let client = try await Self.client(device)
            try await device.enroll()
            #expect(
                try await client.deviceInformation()
                    == DeviceInformation(deviceMode: "shared", generation: 0, passcodePolicy: true))
            try await device.checkOut("cou1")
            #expect(
                try await client.deviceInformation()
                    == DeviceInformation(deviceMode: "shared", generation: 1, passcodePolicy: true, passcodeSet: true))
        }
        try await InProcessDevice.with(policy: .init(shared: false)) { device in
            try await device.enrollAndCheckOut("cou1")
            let information = try await Self.client(device).deviceInformation()
            #expect(information.deviceMode == "personal" && !information.isSharedDevice)
        }
    }

    @Test func postsArriveAndTheNotifyStateMovesWithTheGeneration() async throws {
        try await InProcessDevice.with { device in
            try await device.enrollAndCheckOut("cou1")
            let client = try await Self.client(device)
            let (posts, subscription) = try await device.posts(of: NotifyCenter.accountChanged)
            defer { subscription.cancel() }
            #expect(await Self.notifyState(device) == 0, "a check-out posts nothing by default")
            #expect(try await Self.current(client) == "current-account(cou1,none)")

            try await device.checkIn()
            let post = try await next(posts, within: .seconds(10))
            #expect(post.sender == (try await device.console.nameOwner(DeviceBus.hubName)))
            #expect(await Self.notifyState(device) == 2)
            #expect(try await Self.current(client) == "current-account(none,cou1)")

            try await device.checkOut("cou2")
            #expect(await Self.notifyState(device) == 2)
            try await device.checkIn()
            _ = try await next(posts, within: .seconds(10))
            #expect(await Self.notifyState(device) == 4)
        }
    }

    @Test func aSpoofedPostIsOnlyAHint() async throws {
        try await InProcessDevice.with { device in
            try await device.enrollAndCheckOut("cou1")
            let client = try await Self.client(device)
            #expect(try await Self.current(client) == "current-account(cou1,none)")
            let (posts, subscription) = try await device.posts(of: NotifyCenter.accountChanged)
            defer { subscription.cancel() }

            let serial = try device.console.post(NotifyCenter.accountChanged)
            let post = try await next(posts, within: .seconds(10))
            #expect(post.sender == device.console.uniqueName && post.serial == serial)
            #expect(await Self.notifyState(device) == 0, "a post sets no state")
            #expect(try await Self.current(client) == "current-account(cou1,cou1)")
        }
    }

    @Test func theBrokerAlsoPostsOnSignInWhenAskedTo() async throws {
        try await InProcessDevice.with(policy: .init(broadcastOnSignIn: true)) { device in
            try await device.enroll()
            let client = try await Self.client(device)
            let (posts, subscription) = try await device.posts(of: NotifyCenter.accountChanged)
            defer { subscription.cancel() }
            _ = try await client.signIn(user: "cou1", password: "cou1")
            _ = try await next(posts, within: .seconds(10))
            #expect(await Self.notifyState(device) == 1)
        }
    }

    @Test func anUnreachableHubChangesNothing() async throws {
        try await InProcessDevice.with { device in
            try await device.enrollAndCheckOut("cou1")
            let client = try await Self.client(device)
            #expect(try await Self.current(client) == "current-account(cou1,none)")
            let saved = try #require(FileIdentity(Self.lastSeenFile(device)))

            await device.stopHub()
            #expect(await client.getCurrentAccount() == .failure(.unreachable))
            #expect(await refusal { _ = try await client.deviceInformation() } != nil)
            #expect(
                await refusal { try await client.signOut(homeAccountID: "cou1.sdlab-tenant") }
                    == DBusError.device(WorkspaceOneSessionRule.hubUnreachableError).name)
            #expect(FileIdentity(Self.lastSeenFile(device)) == saved)

            // Served again: the client still remembers cou1.
            try await device.startHub()
            #expect(try await Self.current(client) == "current-account(cou1,cou1)")
        }
    }

    @Test func aHubThatStoppedBeforeTheFirstCallWritesNothing() async throws {
        try await InProcessDevice.with { device in
            try await device.enrollAndCheckOut("cou1")
            await device.stopHub()
            let client = try await Self.client(device)
            #expect(try await Self.current(client) == "error HubUnreachable")
            #expect(!FileManager.default.fileExists(atPath: Self.lastSeenFile(device)))
            try await device.startHub()
            #expect(try await Self.current(client) == "current-account(cou1,none)")
        }
    }
}

extension MSALBrokerClientTests {
    /// The account-change notification's state as the hub keeps it (notify_get_state).
    static func notifyState(_ device: InProcessDevice) async -> UInt64? {
        try? await device.console.callHub(
            NotifyMethod.getState, [.string(NotifyCenter.accountChanged)], timeout: .seconds(5)
        ).first?.uint64
    }
}
