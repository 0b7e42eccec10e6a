import DBusKit
import DeviceContract
import DeviceProcesses
import DeviceTestKit
import FacadeCore
import Foundation
import Hub
import HubFiles
import SDKClients
import SharedDevice
import Synchronization
import TestSupport
import Testing

@testable import MSALAndroid

/// What an app's callbacks were told, in order, in words: `changed(none,cou1)`, `loaded(cou1)`,
/// `error(no_current_account)`, `signed-out`, `signed-in(cou1)`, `cancelled`; marked when one
/// runs off the main queue (MSAL Android calls back on the main looper).
final class AndroidCallbacks: SingleAccountPublicClientApplication.CurrentAccountCallback,
    SingleAccountPublicClientApplication.SignOutCallback, AuthenticationCallback,
    PublicClientApplication.ISingleAccountApplicationCreatedListener, Sendable
{
    private let heard: AsyncStream<String>.Continuation
    let events: AsyncStream<String>
    let exceptions = Mutex<[MsalException]>([])

    init() { (events, heard) = AsyncStream.makeStream() }

    private func tell(_ event: String) {
        heard.yield(DispatchQueue.getSpecific(key: Self.main) == true ? event : "\(event) off the main queue")
    }

    /// Marks the main queue, whose blocks may run on any thread once the main thread has
    /// handed it over to Dispatch.
    static let main: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    private static func word(_ account: IAccount?) -> String { account?.username ?? "none" }

    func onAccountLoaded(_ activeAccount: IAccount?) { tell("loaded(\(Self.word(activeAccount)))") }
    func onAccountChanged(priorAccount: IAccount?, currentAccount: IAccount?) {
        tell("changed(\(Self.word(priorAccount)),\(Self.word(currentAccount)))")
    }
    func onError(_ exception: MsalException) {
        exceptions.withLock { $0.append(exception) }
        tell("error(\(exception.errorCode))")
    }
    func onSignOut() { tell("signed-out") }
    func onSuccess(_ authenticationResult: IAuthenticationResult) {
        tell("signed-in(\(authenticationResult.account.username))")
    }
    func onCancel() { tell("cancelled") }
    func onCreated(_ application: SingleAccountPublicClientApplication) { tell("created(\(application.clientId))") }

    /// The events up to the one that ends a call (anything but `changed`), at most 10 seconds.
    func untilDone() async throws -> [String] {
        var seen: [String] = []
        while true {
            let event = try await next(events)
            seen.append(event)
            if !event.hasPrefix("changed(") { return seen }
        }
    }
}

extension SingleAccountPublicClientApplication {
    /// One `getCurrentAccountAsync`, as the callbacks heard it.
    func check() async throws -> [String] {
        let callbacks = AndroidCallbacks()
        getCurrentAccountAsync(callbacks)
        return try await callbacks.untilDone()
    }

    func signIn() async throws -> [String] {
        let callbacks = AndroidCallbacks()
        signIn(activity: nil, loginHint: nil, scopes: ["User.Read"], callback: callbacks)
        return try await callbacks.untilDone()
    }

    func signOut() async throws -> (events: [String], exceptions: [MsalException]) {
        let callbacks = AndroidCallbacks()
        signOut(callbacks)
        return (try await callbacks.untilDone(), callbacks.exceptions.withLock { $0 })
    }

    /// The blocking form, from a thread of its own as an app's worker thread calls it.
    func blockingCheck() async -> Result<ICurrentAccountResult, MsalException> {
        let application = AppValue(self)
        return await offPool {
            AppValue(Result { () throws(MsalException) in try application.value.getCurrentAccount() })
        }
        .value
    }
}

/// MSAL Android's single-account API without a broker: nobody is signed in, and the app's own
/// requests end as MSAL ends them.
@Suite struct MSALAndroidOutsideADeviceTests {
    @Test func nobodyIsSignedInAndTheRequestsAreRefused() async throws {
        let application = SingleAccountPublicClientApplication(clientId: "scanner", link: nil)
        #expect(try await application.check() == ["loaded(none)"])
        let blocking = try await application.blockingCheck().get()
        #expect(blocking.currentAccount == nil && blocking.priorAccount == nil && !blocking.didAccountChange())
        #expect(try await application.signOut().events == ["error(\(MsalClientException.NO_CURRENT_ACCOUNT))"])
        #expect(try await application.signIn() == ["error(\(MsalClientException.BROKER_NOT_INSTALLED))"])
    }

    @Test func theApplicationIsMadeFromASingleAccountConfigurationFile() async throws {
        try #require(DeviceLink.current == nil, "no test in this process joins a device")
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-msal-android")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        func create(_ json: String?) async throws -> String {
            let path = folder + "/auth_config_\(UUID().uuidString).json"
            if let json { try Data(json.utf8).write(to: URL(fileURLWithPath: path)) }
            let listener = AndroidCallbacks()
            PublicClientApplication.createSingleAccountPublicClientApplication(configFile: path, listener: listener)
            return try await next(listener.events)
        }
        #expect(try await create(#"{"client_id": "scanner", "account_mode": "SINGLE"}"#) == "created(scanner)")
        #expect(
            try await create(#"{"client_id": "scanner", "account_mode": "MULTIPLE"}"#)
                == "error(\(MsalClientException.SINGLE_ACCOUNT_PCA_INIT_FAIL_ACCOUNT_MODE_ERROR_CODE))")
        #expect(
            try await create(#"{"client_id": "scanner"}"#)
                == "error(\(MsalClientException.SINGLE_ACCOUNT_PCA_INIT_FAIL_ACCOUNT_MODE_ERROR_CODE))",
            "MSAL's default account mode is MULTIPLE")
        #expect(
            try await create(#"{"account_mode": "SINGLE"}"#) == "error(\(MsalClientException.JSON_PARSE_FAILURE))")
        #expect(try await create(nil) == "error(\(MsalClientException.IO_ERROR))")
    }

    @Test func theDevicesFailuresReadAsMSALsExceptions() {
        func exception(_ error: any Error) -> (kind: String, code: String) {
            let exception = MsalErrors.exception(error)
            #expect(exception.userInfo[NSUnderlyingErrorKey] is DeviceFailure, "the host can name the refusal")
            return ("\(type(of: exception))", exception.errorCode)
        }
        #expect(
            exception(AndroidMSALAccountRule.Refusal.invalidParameter.dbusError)
                == ("MsalClientException", MsalClientException.INVALID_PARAMETER))
        #expect(
            exception(AndroidMSALAccountRule.Refusal.noCurrentAccount.dbusError)
                == ("MsalClientException", MsalClientException.NO_CURRENT_ACCOUNT))
        #expect(
            exception(DeviceError.badCredentials.dbusError)
                == ("MsalServiceException", MsalServiceException.INVALID_GRANT))
        #expect(
            exception(DeviceError.alreadySignedIn.dbusError)
                == ("MsalServiceException", MsalServiceException.UNKNOWN_ERROR))
        #expect(
            exception(BrokerError.unreachable)
                == ("MsalClientException", MsalClientException.BROKER_BIND_FAILURE))
        #expect(
            exception(DBusError.device(WorkspaceOneSessionRule.hubUnreachableError))
                == ("MsalClientException", MsalClientException.BROKER_BIND_FAILURE))
        #expect(
            exception(BrokerError.ambiguousAccount)
                == ("MsalClientException", MsalClientException.UNKNOWN_ERROR))
    }
}

/// MSAL Android's single-account API against the real hub on a private bus.
@Suite(.tags(.device), .devicesWanted, .serialized, .timeLimit(.minutes(3)))
struct MSALAndroidOnADeviceTests {
    @Test func loadedThenChangedAfterAnotherAppSignsOut() async throws {
        try await AndroidDevice.with { device in
            try await device.console(HubMethod.enroll, ["stage", "stage"])
            let application = try await device.application()
            #expect(try await application.check() == ["loaded(none)"])
            try await device.console(HubMethod.checkOut, ["cou1", "cou1"])
            #expect(try await application.check() == ["changed(none,cou1)", "loaded(cou1)"])
            #expect(try await application.check() == ["loaded(cou1)"])

            // Another app signs the device out through the broker.
            try await device.otherApp().signOut()
            #expect(try await application.check() == ["changed(cou1,none)", "loaded(none)"])

            // The blocking form reports a change once, too.
            _ = try await device.otherApp().signIn("cou2", "cou2")
            let result = try await application.blockingCheck().get()
            #expect(result.didAccountChange() && result.priorAccount == nil)
            #expect(result.currentAccount?.username == "cou2" && result.currentAccount?.id == "cou2")
            let unchanged = try await application.blockingCheck().get()
            #expect(!unchanged.didAccountChange() && unchanged.priorAccount?.username == "cou2")

            let listener = device.listener
            #expect(
                listener.results.withLock { $0.map { $0.callbacks.map(\.description) } } == [
                    ["account-loaded(none)"], ["account-changed(none,cou1)", "account-loaded(cou1)"],
                    ["account-loaded(cou1)"], ["account-changed(cou1,none)", "account-loaded(none)"],
                    ["account-changed(none,cou2)", "account-loaded(cou2)"], ["account-loaded(cou2)"],
                ])
            #expect(listener.results.withLock { $0.last?.user } == "cou2")
            try await eventually("every check's app code returned") {
                listener.started.withLock { $0 } == 6 && listener.returnedAfterCheck.withLock { $0 } == 6
            }
        }
    }

    /// The broker's broadcast reaches a registered receiver on the main queue, once per
    /// broadcast; the iOS Darwin name does not, nor does an action once its receiver is
    /// unregistered (Docs/behaviour.md §5).
    @Test func aReceiverHearsTheBrokersBroadcastNotTheDarwinName() async throws {
        try await AndroidDevice.with { device in
            try await device.console(HubMethod.enroll, ["stage", "stage"])
            try await device.console(HubMethod.checkOut, ["cou1", "cou1"])
            let context = Context(link: try await device.link())
            let changed = Receiver(), other = Receiver()
            let action = AndroidBroker.accountChangedAction
            // Off the cooperative pool, as an app registers on its main thread: registering
            // waits for the bus to take the rule.
            await offPool {
                context.registerReceiver(changed, IntentFilter(action))
                context.registerReceiver(other, IntentFilter("com.example.OTHER"))
            }
            let poster = try await device.poster()

            // One sender's posts arrive in order: the Darwin one, sent first, would come first.
            let darwin = try poster.post(NotifyCenter.accountChanged)
            let spoofed = try poster.post(action)
            #expect(try await next(changed.heard) == action)
            #expect(device.listener.posts.withLock { $0 } == ["\(action)#\(spoofed)"], "not #\(darwin)")

            try await device.console(HubMethod.checkIn)
            #expect(try await next(changed.heard) == action, "the broker's own broadcast")

            await offPool { context.unregisterReceiver(changed) }
            try poster.post(action)
            try poster.post("com.example.OTHER")
            #expect(try await next(other.heard) == "com.example.OTHER")
            #expect(changed.count == 2, "nothing after it was unregistered")
        }
    }

    /// What a receiver heard: each intent's action, marked when it ran off the main queue.
    final class Receiver: BroadcastReceiver, @unchecked Sendable {
        let heard: AsyncStream<String>
        private let continuation: AsyncStream<String>.Continuation
        private let received = Mutex(0)

        var count: Int { received.withLock { $0 } }

        override init() {
            (heard, continuation) = AsyncStream.makeStream()
            super.init()
        }

        override func onReceive(_ context: Context, _ intent: Intent) {
            received.withLock { $0 += 1 }
            let action = intent.getAction() ?? "none"
            let onMain = DispatchQueue.getSpecific(key: AndroidCallbacks.main) == true
            continuation.yield(onMain ? action : "\(action) off the main queue")
        }
    }

    @Test func theAppsOwnSignInAndSignOutAndTheirRefusals() async throws {
        try await AndroidDevice.with { device in
            try await device.console(HubMethod.enroll, ["stage", "stage"])
            let application = try await device.application()

            // Nothing persisted: a sign-out is refused before the broker is asked.
            let refused = try await application.signOut()
            #expect(refused.events == ["error(\(MsalClientException.NO_CURRENT_ACCOUNT))"])
            #expect(refused.exceptions.first is MsalClientException)

            #expect(try await application.signIn() == ["cancelled"], "nobody typed anything")
            device.listener.type("cou1", "wrong")
            #expect(try await application.signIn() == ["error(\(MsalServiceException.INVALID_GRANT))"])
            device.listener.type("cou1", "cou1")
            #expect(try await application.signIn() == ["signed-in(cou1)"])
            #expect(
                FileManager.default.fileExists(atPath: device.keychain + "/msal-android-current-account.json"),
                "the account is where the built-in app has kept it")
            device.listener.type("cou2", "cou2")
            #expect(
                try await application.signIn() == ["error(\(MsalClientException.INVALID_PARAMETER))"],
                "an account is already signed in")
            #expect(try await application.check() == ["loaded(cou1)"], "its own sign-in is no change")

            #expect(try await application.signOut().events == ["signed-out"])
            let session = Session(wire: try await device.console(HubMethod.getSession).first)
            #expect(session?.user == nil)
            #expect(try await application.check() == ["loaded(none)"], "its own sign-out is no change")
        }
    }

    @Test func aBrokerThatDoesNotAnswerFailsTheCheck() async throws {
        try await AndroidDevice.with { device in
            try await device.console(HubMethod.enroll, ["stage", "stage"])
            try await device.console(HubMethod.checkOut, ["cou1", "cou1"])
            let application = try await device.application()
            #expect(try await application.check() == ["changed(none,cou1)", "loaded(cou1)"])
            await device.stopHub()
            #expect(try await application.check() == ["error(\(MsalClientException.BROKER_BIND_FAILURE))"])
            #expect(device.listener.failures.withLock { $0 } == [WorkspaceOneSessionRule.hubUnreachableError])
            if case .failure(let exception) = await application.blockingCheck() {
                #expect(exception.errorCode == MsalClientException.BROKER_BIND_FAILURE)
            } else {
                Issue.record("the blocking check answered without a broker")
            }
        }
    }
}

/// What the facade told the host, and the person at the device's typing.
final class AndroidListener: DeviceListener {
    let started = Mutex(0)
    let results = Mutex<[CheckResult]>([])
    let failures = Mutex<[String]>([])
    let returnedAfterCheck = Mutex(0)
    private let typed = Mutex<(user: String, password: String)?>(nil)

    func type(_ user: String, _ password: String) { typed.withLock { $0 = (user, password) } }

    /// The posts heard, by name and serial.
    let posts = Mutex<[String]>([])

    func heardPost(_ name: String, sender: String, serial: UInt32) { posts.withLock { $0.append("\(name)#\(serial)") } }
    func checkStarted() { started.withLock { $0 += 1 } }
    func checkFinished(_ result: CheckResult) { results.withLock { $0.append(result) } }
    func checkFailed(_ error: String) { failures.withLock { $0.append(error) } }
    func appCodeReturned(afterCheck: Bool, mayStillRun: Bool) {
        if afterCheck { returnedAfterCheck.withLock { $0 += 1 } }
    }
    func takeCredentials() -> (user: String, password: String)? {
        typed.withLock { typed in
            defer { typed = nil }
            return typed
        }
    }
}

/// The kit's device with the app `scanner` on it. The app's link is its own, never installed for
/// the process, since the other facade tests run outside a device.
struct AndroidDevice: Sendable {
    let device: InProcessDevice
    let listener = AndroidListener()
    var keychain: String { device.directory + "/scanner/keychain" }

    static func with(_ body: (AndroidDevice) async throws -> Void) async throws {
        try await InProcessDevice.with(prefix: "sdlab-msal-android") { try await body(AndroidDevice(device: $0)) }
    }

    func stopHub() async { await device.stopHub() }

    /// The app `scanner`'s application, on a connection of its own.
    func application() async throws -> SingleAccountPublicClientApplication {
        SingleAccountPublicClientApplication(clientId: "scanner", link: try await link())
    }

    /// The app `scanner`'s link to the device, on a connection of its own.
    func link() async throws -> DeviceLink {
        DeviceLink(
            connection: try await device.connection(), hub: .wellKnown, hubTimeout: .seconds(5), appName: "scanner",
            keychainFolder: keychain, listener: listener)
    }

    /// A process that is not the broker, to post from.
    func poster() async throws -> Connection { try await device.connection() }

    /// Another MSAL app of the device, as its broker calls go.
    func otherApp() async throws -> Broker { Broker(connection: try await device.connection(), clientID: "other") }

    /// A call of the console or the Hub app.
    @discardableResult
    func console<Method: HubMember>(_ method: Method, _ arguments: [DBusValue] = []) async throws -> [DBusValue] {
        try await device.console(method, arguments)
    }
}
