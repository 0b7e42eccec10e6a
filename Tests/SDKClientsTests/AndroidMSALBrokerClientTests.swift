import DBusKit
import DeviceContract
import DeviceProcesses
import DeviceTestKit
import Foundation
import SDKClients
import SharedDevice
import TestSupport
import Testing

/// MSAL Android (Docs/behaviour.md §5) against the real hub on a private bus.
@Suite(.tags(.device), .devicesWanted, .serialized, .timeLimit(.minutes(3)))
struct AndroidMSALBrokerClientTests {
    static func client(_ device: InProcessDevice, app: String = "scanner") async throws -> AndroidMSALBrokerClient {
        AndroidMSALBrokerClient(
            connection: try await device.connection(), clientID: app, keychain: try device.keychain(app))
    }

    /// The callbacks of one check as an app records them, or the error's label.
    static func callbacks(_ client: AndroidMSALBrokerClient) async throws -> [String] {
        switch try await client.getCurrentAccount() {
        case .success(let callbacks): callbacks.map(\.description)
        case .failure(let error): ["error \(error.label)"]
        }
    }

    static func storedFile(_ device: InProcessDevice, app: String = "scanner") -> String {
        RunFolder.container(of: app, in: device.directory) + "/keychain/msal-android-current-account.json"
    }

    @Test func accountChangedOnlyWhenTheAccountChangesThenAccountLoaded() async throws {
        try await InProcessDevice.with { device in
            try await device.enroll()
            let client = try await Self.client(device)
            #expect(try await Self.callbacks(client) == ["account-loaded(none)"])
            try await device.checkOut("cou1")
            #expect(try await Self.callbacks(client) == ["account-changed(none,cou1)", "account-loaded(cou1)"])
            #expect(try await Self.callbacks(client) == ["account-loaded(cou1)"])
            try await device.checkIn()
            try await device.checkOut("cou2")
            #expect(try await Self.callbacks(client) == ["account-changed(cou1,cou2)", "account-loaded(cou2)"])
            try await device.checkIn()
            #expect(try await Self.callbacks(client) == ["account-changed(cou2,none)", "account-loaded(none)"])
            #expect(try await Self.callbacks(client) == ["account-loaded(none)"])
        }
    }

    @Test func theCallbacksNameTheAccounts() async throws {
        try await InProcessDevice.with { device in
            try await device.enrollAndCheckOut("cou1")
            let client = try await Self.client(device)
            let callbacks = try await client.getCurrentAccount().get()
            #expect(
                callbacks == [
                    .accountChanged(prior: nil, current: BrokerAccount(user: "cou1")),
                    .accountLoaded(BrokerAccount(user: "cou1")),
                ])
            #expect(callbacks.map(\.account) == [BrokerAccount(user: "cou1"), BrokerAccount(user: "cou1")])
        }
    }

    @Test func theStoredAccountOutlivesTheClient() async throws {
        try await InProcessDevice.with { device in
            try await device.enrollAndCheckOut("cou1")
            #expect(
                try await Self.callbacks(Self.client(device)) == ["account-changed(none,cou1)", "account-loaded(cou1)"])
            let saved = try #require(FileIdentity(Self.storedFile(device)))
            #expect(try await Self.callbacks(Self.client(device)) == ["account-loaded(cou1)"])
            #expect(FileIdentity(Self.storedFile(device)) == saved, "nothing changed: the keychain is not rewritten")
            try await device.checkIn()
            try await device.checkOut("cou2")
            #expect(
                try await Self.callbacks(Self.client(device)) == ["account-changed(cou1,cou2)", "account-loaded(cou2)"])
        }
    }

    @Test func aCorruptStoredAccountCountsAsAChangeFromNone() async throws {
        try await InProcessDevice.with { device in
            try await device.enrollAndCheckOut("cou1")
            _ = try device.keychain("scanner")
            try Data("not json".utf8).write(to: URL(fileURLWithPath: Self.storedFile(device)))
            let client = try await Self.client(device)
            #expect(try await Self.callbacks(client) == ["account-changed(none,cou1)", "account-loaded(cou1)"])
            #expect(try await Self.callbacks(client) == ["account-loaded(cou1)"])
        }
    }

    @Test func ownSignInAndSignOutUpdateTheStoredAccount() async throws {
        try await InProcessDevice.with { device in
            try await device.enroll()
            let client = try await Self.client(device)
            #expect(try await Self.callbacks(client) == ["account-loaded(none)"])
            let account = try await client.signIn(user: "cou1", password: "cou1")
            #expect(account == BrokerAccount(user: "cou1"))
            #expect(try await Self.callbacks(client) == ["account-loaded(cou1)"], "its own sign-in is no change")

            // Another app on the device learns of it as a change.
            #expect(
                try await Self.callbacks(Self.client(device, app: "other")) == [
                    "account-changed(none,cou1)", "account-loaded(cou1)",
                ])

            try await client.signOut()
            #expect(try await device.session() == Session(state: .checkedIn, user: nil, generation: 2))
            #expect(try await Self.callbacks(client) == ["account-loaded(none)"], "its own sign-out is no change")
        }
    }

    @Test func ownSignInIsStoredForTheNextLaunch() async throws {
        try await InProcessDevice.with { device in
            try await device.enroll()
            _ = try await Self.client(device).signIn(user: "cou1", password: "cou1")
            #expect(try await Self.callbacks(Self.client(device)) == ["account-loaded(cou1)"])
        }
    }

    @Test func signInAndSignOutErrors() async throws {
        try await InProcessDevice.with { device in
            try await device.enroll()
            let client = try await Self.client(device)
            #expect(await refusal { try await client.signOut() } == DeviceError.noCurrentAccount.name)
            #expect(
                await refusal { _ = try await client.signIn(user: "cou1", password: "cou2") }
                    == DeviceError.badCredentials.name)
            try await device.checkOut("cou2")
            #expect(
                await refusal { _ = try await client.signIn(user: "cou1", password: "cou1") }
                    == DeviceError.alreadySignedIn.name)
            // A refused sign-in stores nothing: the next check still reports the change.
            #expect(try await Self.callbacks(client) == ["account-changed(none,cou2)", "account-loaded(cou2)"])
        }
    }

    @Test func postsAndTheNotifyState() async throws {
        try await InProcessDevice.with { device in
            try await device.enrollAndCheckOut("cou1")
            let client = try await Self.client(device)
            let (posts, subscription) = try await device.posts(of: AndroidBroker.accountChangedAction)
            defer { subscription.cancel() }
            try await device.checkIn()
            _ = try await next(posts, within: .seconds(10))
            #expect(await Self.notifyState(device) == 2)
            #expect(try await client.deviceInformation() == DeviceInformation(deviceMode: "shared", generation: 2))
        }
    }

    /// Docs/behaviour.md §2: on a personal device the app's sign-out is its own; the broker
    /// and the other apps keep the account.
    @Test func onAPersonalDeviceTheSignOutIsTheAppsAlone() async throws {
        try await InProcessDevice.with(policy: .init(shared: false)) { device in
            try await device.enrollAndCheckOut("cou1")
            let scanner = try await Self.client(device)
            #expect(try await Self.callbacks(scanner) == ["account-changed(none,cou1)", "account-loaded(cou1)"])
            try await scanner.signOut()
            #expect(try await Self.callbacks(scanner) == ["account-loaded(none)"])
            #expect(try await Self.callbacks(Self.client(device, app: "other")).last == "account-loaded(cou1)")
            #expect(try await device.session()?.user == "cou1")
            _ = try await scanner.signIn(user: "cou1", password: "cou1")
            #expect(try await Self.callbacks(scanner) == ["account-loaded(cou1)"])
        }
    }

    @Test func anUnreachableHubChangesNothing() async throws {
        try await InProcessDevice.with { device in
            try await device.enrollAndCheckOut("cou1")
            let client = try await Self.client(device)
            #expect(try await Self.callbacks(client) == ["account-changed(none,cou1)", "account-loaded(cou1)"])
            let saved = try #require(FileIdentity(Self.storedFile(device)))
            await device.stopHub()
            #expect(try await client.getCurrentAccount() == .failure(.unreachable))
            #expect(
                await refusal { try await client.signOut() }
                    == DBusError.device(WorkspaceOneSessionRule.hubUnreachableError).name)
            #expect(FileIdentity(Self.storedFile(device)) == saved)
            try await device.startHub()
            #expect(try await Self.callbacks(client) == ["account-loaded(cou1)"])
        }
    }
}

extension AndroidMSALBrokerClientTests {
    /// The account-change notification's state as the hub keeps it (notify_get_state).
    static func notifyState(_ device: InProcessDevice) async -> UInt64? {
        try? await device.console.callHub(
            NotifyMethod.getState, [.string(NotifyCenter.accountChanged)], timeout: .seconds(5)
        ).first?.uint64
    }
}
