import DBusKit
import DeviceContract
import DeviceLink
import Foundation
import SharedDevice
import SharedDeviceSDK
import Synchronization

/// MSAL's application object, in shared device mode, over the device's broker
/// (Docs/behaviour.md §10). `getCurrentAccount` keeps MSAL's previous-account bookkeeping in
/// the app's keychain across launches; the interactive sign-in takes what the person at the
/// device types (a scenario's `signin` step); without a device every call fails as MSAL does
/// when its broker is missing (`internal`, `brokerNotAvailable`).
public class MSALPublicClientApplication: NSObject {
    public let configuration: MSALPublicClientApplicationConfig

    /// An application object for `configuration`; it asks the device's broker at each call.
    public init(configuration: MSALPublicClientApplicationConfig) throws {
        self.configuration = configuration
    }

    /// An application object with MSAL's default authority.
    public convenience init(clientId: String) throws {
        try self.init(configuration: MSALPublicClientApplicationConfig(clientId: clientId))
    }

    private var log: MSALLoggerConfig { MSALGlobalConfig.loggerConfig }

    // MARK: - The current account

    /// `(current, previous, error)`: previous is the account this app saw at its last call.
    public func getCurrentAccount(
        with parameters: MSALParameters?,
        completionBlock: @escaping (MSALAccount?, MSALAccount?, Error?) -> Void
    ) {
        let completion = AppValue(completionBlock)
        let queue = parameters?.completionBlockQueue
        guard let link = DeviceLink.current else {
            return Calls.complete(on: queue) { completion.value(nil, nil, MSALErrors.brokerNotAvailable()) }
        }
        log.log(.info, "getCurrentAccount")
        guard let client = try? Calls.client(link) else {
            return Calls.complete(on: queue, link) {
                completion.value(nil, nil, MSALErrors.make(.internal, nil, "the keychain cannot be opened"))
            }
        }
        link.listener.checkStarted()
        Task(executorPreference: link.connection) {
            guard let answer = try? await client.getCurrentAccount() else { return }
            switch answer {
            case .success(let result):
                link.listener.checkFinished(
                    CheckReport(
                        callbacks: [result.callback], user: result.current?.username,
                        previous: .some(result.previous?.username)))
                let (current, previous) = (result.current.map(MSALAccount.init), result.previous.map(MSALAccount.init))
                Calls.complete(on: queue, link, afterCheck: true) { completion.value(current, previous, nil) }
            case .failure(let error):
                link.listener.checkFailed(error.label)
                Calls.complete(on: queue, link, afterCheck: true) {
                    completion.value(nil, nil, MSALErrors.from(error))
                }
            }
        }
    }

    /// Whether the device is in shared device mode; on an error, the default information
    /// together with the error.
    public func getDeviceInformation(
        with parameters: MSALParameters?,
        completionBlock: @escaping (MSALDeviceInformation?, Error?) -> Void
    ) {
        let completion = AppValue(completionBlock)
        let queue = parameters?.completionBlockQueue
        guard let link = DeviceLink.current else {
            let fallback = MSALDeviceInformation(deviceMode: .default)
            return Calls.complete(on: queue) { completion.value(fallback, MSALErrors.brokerNotAvailable()) }
        }
        Task(executorPreference: link.connection) {
            do {
                let reply = try await link.connection.callHub(
                    BrokerMethod.getDeviceInformation, at: link.hub, timeout: link.hubTimeout)
                let shared = DeviceInformation(wire: reply.first).isSharedDevice
                Calls.complete(on: queue, link) {
                    completion.value(MSALDeviceInformation(deviceMode: shared ? .shared : .default), nil)
                }
            } catch {
                // As MSAL does: a default device information together with the error.
                Calls.complete(on: queue, link) {
                    completion.value(MSALDeviceInformation(deviceMode: .default), MSALErrors.from(error))
                }
            }
        }
    }

    // MARK: - Tokens, sign-in and sign-out

    /// The interactive sign-in: in shared device mode the account becomes the device's, for
    /// every app. What is typed comes from the scenario (`signin` of this app); with nobody at
    /// the device it ends as the user cancelling. Completes on the main queue.
    public func acquireToken(
        with parameters: MSALInteractiveTokenParameters,
        completionBlock: @escaping (MSALResult?, Error?) -> Void
    ) {
        let completion = AppValue(completionBlock)
        guard let link = DeviceLink.current else {
            return Calls.complete(on: .main) { completion.value(nil, MSALErrors.brokerNotAvailable()) }
        }
        guard let typed = link.listener.takeCredentials() else {
            return Calls.complete(on: .main, link) { completion.value(nil, MSALErrors.make(.userCanceled)) }
        }
        let (clientID, scopes, authority) = (configuration.clientId, parameters.scopes, AppValue(parameters.authority))
        Task(executorPreference: link.connection) {
            do {
                let reply = try await link.connection.callHub(
                    BrokerMethod.signIn, [.string(typed.user), .string(typed.password), .string(clientID)],
                    at: link.hub, timeout: link.hubTimeout)
                guard let signedIn = BrokerAccount(wire: reply.first) else { throw DBusError.failed("no account") }
                let account = MSALAccount(signedIn)
                let result = try await Calls.token(
                    for: account, scopes: scopes, authority: authority.value, link, clientID)
                Calls.complete(on: .main, link) { completion.value(result, nil) }
            } catch {
                Calls.complete(on: .main, link) { completion.value(nil, MSALErrors.from(error)) }
            }
        }
    }

    /// A token for an account already signed in, without showing anything.
    public func acquireTokenSilent(
        with parameters: MSALSilentTokenParameters,
        completionBlock: @escaping (MSALResult?, Error?) -> Void
    ) {
        let completion = AppValue(completionBlock)
        let queue = parameters.completionBlockQueue
        guard let requested = parameters.account else {
            // As MSAL does, before anything else: without an account the app must sign in.
            let link = DeviceLink.current
            return Calls.complete(on: queue, link) {
                completion.value(nil, MSALErrors.make(.interactionRequired, nil, "no account for the silent request"))
            }
        }
        guard let link = DeviceLink.current else {
            return Calls.complete(on: queue) { completion.value(nil, MSALErrors.brokerNotAvailable()) }
        }
        let (account, scopes, authority, clientID) = (
            AppValue(requested), parameters.scopes, AppValue(parameters.authority), configuration.clientId
        )
        Task(executorPreference: link.connection) {
            do {
                let result = try await Calls.token(
                    for: account.value, scopes: scopes, authority: authority.value, link, clientID)
                Calls.complete(on: queue, link) { completion.value(result, nil) }
            } catch {
                Calls.complete(on: queue, link) { completion.value(nil, MSALErrors.from(error)) }
            }
        }
    }

    /// In shared device mode a global sign-out, for every app (the broker then posts). It does
    /// not touch the account `getCurrentAccount` compares with. Completes on the main queue.
    public func signout(
        with account: MSALAccount, signoutParameters: MSALSignoutParameters,
        completionBlock: @escaping (Bool, Error?) -> Void
    ) {
        let completion = AppValue(completionBlock)
        guard let link = DeviceLink.current else {
            return Calls.complete(on: .main) { completion.value(false, MSALErrors.brokerNotAvailable()) }
        }
        let (id, clientID) = (account.identifier ?? "", configuration.clientId)
        Task(executorPreference: link.connection) {
            do {
                try await link.connection.callHub(
                    BrokerMethod.signOut, [.string(id), .string(clientID)], at: link.hub, timeout: link.hubTimeout)
                Calls.complete(on: .main, link) { completion.value(true, nil) }
            } catch {
                Calls.complete(on: .main, link) { completion.value(false, MSALErrors.from(error)) }
            }
        }
    }

    // MARK: - The accounts in the cache (the broker's)

    /// The accounts the broker has signed in.
    @discardableResult
    public func allAccounts() throws -> [MSALAccount] {
        guard let link = DeviceLink.current else { throw MSALErrors.brokerNotAvailable() }
        let answer = waitFor(timeout: link.hubTimeout) { () -> Result<[BrokerAccount], SharedDevice.MSALError>? in
            try? await Calls.client(link).accounts()
        }
        switch answer {
        case .success(let accounts)??: return accounts.map(MSALAccount.init)
        case .failure(let error)??: throw MSALErrors.from(error)
        default: throw MSALErrors.brokerNotAvailable()
        }
    }

    /// The broker's account with this home identifier, ignoring case; throws when there is none.
    @discardableResult
    public func account(forIdentifier identifier: String) throws -> MSALAccount {
        try only(try accounts(identifier: identifier, username: nil))
    }

    /// The broker's account with this username, ignoring case; throws when there is none.
    @discardableResult
    public func account(forUsername username: String) throws -> MSALAccount {
        try only(try accounts(identifier: nil, username: username))
    }

    /// The broker's accounts with this home identifier and username, ignoring case (nil: any).
    private func accounts(identifier: String?, username: String?) throws -> [MSALAccount] {
        let (identifier, username) = (identifier?.lowercased(), username?.lowercased())
        return try allAccounts().filter { account in
            (identifier == nil || account.identifier?.lowercased() == identifier)
                && (username == nil || account.username?.lowercased() == username)
        }
    }

    /// Removes the account from this app's cache only; the broker keeps it.
    public func remove(_ account: MSALAccount) throws {}

    /// The broker's accounts that match `parameters`' identifier and username (ignoring case),
    /// on `completionBlockQueue` when set, else on a global queue.
    public func accountsFromDevice(
        for parameters: MSALAccountEnumerationParameters,
        completionBlock: @escaping ([MSALAccount]?, Error?) -> Void
    ) {
        let completion = AppValue(completionBlock)
        let (identifier, username) = (parameters.identifier, parameters.username)
        let application = AppValue(self)
        Calls.complete(on: parameters.completionBlockQueue) {
            do {
                completion.value(try application.value.accounts(identifier: identifier, username: username), nil)
            } catch {
                completion.value(nil, error)
            }
        }
    }

    // MARK: - URLs handed to the app

    /// Whether `response` answers a sign-in MSAL is waiting for (a browser session's redirect,
    /// or the broker app's reply from `sourceApplication`); the app handles any other URL
    /// itself. Always false here: the broker answers over the device's bus, so no sign-in ever
    /// waits for a URL (Docs/behaviour.md §10).
    @discardableResult
    public class func handleMSALResponse(_ response: URL, sourceApplication: String?) -> Bool {
        MSALGlobalConfig.loggerConfig.log(
            .info, "handleMSALResponse: no sign-in waits for a URL, not handled (from \(sourceApplication ?? "nil"))")
        return false
    }

    /// Cancels the browser session of an interactive sign-in; false, as none is ever open here.
    @discardableResult
    public class func cancelCurrentWebAuthSession() -> Bool { false }

    private func only(_ accounts: [MSALAccount]) throws -> MSALAccount {
        guard let account = accounts.first else {
            throw MSALErrors.make(.internal, .invalidParameter, "no account matches")
        }
        return account
    }

}

// MARK: - The async forms

/// The forms Swift makes of MSAL's completion-block methods when it imports them (SE-0297): the
/// leading `get` dropped, an error thrown, and the values returned, optional only where the
/// header says `_Nullable_result`, and discardable as every imported method is. They run in the
/// caller's isolation, so a main-actor caller hands over nothing (`nonisolated(nonsending)`); the
/// completion-block forms stay as they are, and each call picks its form by its arguments.
extension MSALPublicClientApplication {
    /// `getCurrentAccount(with:completionBlock:)`: the current and the previous account.
    @discardableResult
    public nonisolated(nonsending) func currentAccount(with parameters: MSALParameters?) async throws -> (
        MSALAccount?, MSALAccount?
    ) {
        try await Calls.awaiting { finish in
            getCurrentAccount(with: parameters) { current, previous, error in
                finish(error.map { .failure($0) } ?? .success((current, previous)))
            }
        }
    }

    /// `getDeviceInformation(with:completionBlock:)`. An error throws, even when MSAL handed a
    /// default device information with it.
    @discardableResult
    public nonisolated(nonsending) func deviceInformation(with parameters: MSALParameters?) async throws
        -> MSALDeviceInformation
    {
        try await Calls.awaiting { finish in
            getDeviceInformation(with: parameters) { information, error in finish(Calls.outcome(information, error)) }
        }
    }

    /// `acquireToken(with:completionBlock:)`: the interactive sign-in.
    @discardableResult
    public nonisolated(nonsending) func acquireToken(with parameters: MSALInteractiveTokenParameters) async throws
        -> MSALResult
    {
        try await Calls.awaiting { finish in
            acquireToken(with: parameters) { result, error in finish(Calls.outcome(result, error)) }
        }
    }

    /// `acquireTokenSilent(with:completionBlock:)`.
    @discardableResult
    public nonisolated(nonsending) func acquireTokenSilent(with parameters: MSALSilentTokenParameters) async throws
        -> MSALResult
    {
        try await Calls.awaiting { finish in
            acquireTokenSilent(with: parameters) { result, error in finish(Calls.outcome(result, error)) }
        }
    }

    /// `accountsFromDevice(for:completionBlock:)`.
    @discardableResult
    public nonisolated(nonsending) func accountsFromDevice(for parameters: MSALAccountEnumerationParameters)
        async throws -> [MSALAccount]
    {
        try await Calls.awaiting { finish in
            accountsFromDevice(for: parameters) { accounts, error in finish(Calls.outcome(accounts, error)) }
        }
    }

    /// `signout(with:signoutParameters:completionBlock:)`: whether the sign-out succeeded.
    @discardableResult
    public nonisolated(nonsending) func signout(
        with account: MSALAccount, signoutParameters: MSALSignoutParameters
    ) async throws -> Bool {
        try await Calls.awaiting { finish in
            signout(with: account, signoutParameters: signoutParameters) { success, error in
                finish(error.map { .failure($0) } ?? .success(success))
            }
        }
    }
}

/// The work behind the application object's calls, apart from any app object.
private enum Calls {
    /// Waits for a completion block's outcome, in the caller's isolation.
    nonisolated(nonsending) static func awaiting<Value>(
        _ start: (@escaping (Result<Value, any Error>) -> Void) -> Void
    ) async throws -> Value {
        let outcome = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<AppValue<Value>, any Error>) in
            start { outcome in continuation.resume(with: outcome.map(AppValue.init)) }
        }
        return outcome.value
    }

    /// A completion's `(value, error)` as Swift's import reads it: the error if any, else the value
    /// (MSAL never completes with neither).
    static func outcome<Value>(_ value: Value?, _ error: (any Error)?) -> Result<Value, any Error> {
        if let error { return .failure(error) }
        guard let value else { return .failure(MSALErrors.make(.internal, nil, "MSAL completed with no result")) }
        return .success(value)
    }

    static let clients = Mutex<[String: MSALPublicClient]>([:])

    /// One client per process: its previous-account bookkeeping is the app's, whichever
    /// application object asks.
    static func client(_ link: DeviceLink) throws -> MSALPublicClient {
        try clients.withLock { clients in
            if let client = clients[link.appName] { return client }
            let keychain = try Keychain(folder: link.keychainFolder + "/msal")
            let client = MSALPublicClient(
                connection: link.connection, clientID: link.appName, keychain: keychain, hub: link.hub,
                timeout: link.hubTimeout)
            clients[link.appName] = client
            return client
        }
    }

    static func token(
        for account: MSALAccount, scopes: [String], authority: MSALAuthority?, _ link: DeviceLink, _ clientID: String
    ) async throws -> MSALResult {
        let reply = try await link.connection.callHub(
            BrokerMethod.acquireTokenSilent, [.string(account.identifier ?? ""), .string(clientID)], at: link.hub,
            timeout: link.hubTimeout)
        guard let fields = reply.first?.fields, fields.count == 2, let token = fields[0].string,
            let expiry = fields[1].uint64
        else { throw DBusError.failed("the broker answered no token") }
        return MSALResult(
            accessToken: token, account: account, expiresOn: Date(timeIntervalSince1970: TimeInterval(expiry)),
            scopes: scopes, authority: authority)
    }

    /// Runs the app's completion on `queue`, or on a thread of the global pool as MSAL's
    /// finishing thread would be (never on the bus connection's); then tells the host.
    static func complete(
        on queue: DispatchQueue?, _ link: DeviceLink? = nil, afterCheck: Bool = false, _ body: @escaping () -> Void
    ) {
        let work = AppValue(body)
        (queue ?? .global()).async {
            work.value()
            link?.listener.appCodeReturned(afterCheck: afterCheck)
        }
    }
}

extension MSALAccount {
    convenience init(_ account: BrokerAccount) {
        self.init(username: account.username, homeAccountID: account.homeAccountID, environment: HubModel.environment)
    }
}

/// MSAL's errors as an app receives them: `MSALErrorDomain`, a public code, and for `internal`
/// the specific one under `MSALInternalErrorCodeKey`.
enum MSALErrors {
    static func make(_ code: MSALError, _ internalCode: MSALInternalError? = nil, _ description: String = "")
        -> NSError
    {
        var info: [String: Any] = [:]
        if let internalCode { info[MSALInternalErrorCodeKey] = internalCode.rawValue }
        if !description.isEmpty {
            info[MSALErrorDescriptionKey] = description
            info[NSLocalizedDescriptionKey] = description
        }
        return NSError(domain: MSALErrorDomain, code: code.rawValue, userInfo: info)
    }

    static func brokerNotAvailable(_ description: String = "the broker is not available on this device") -> NSError {
        make(.internal, .brokerNotAvailable, description)
    }

    static func from(_ error: SharedDevice.MSALError) -> NSError {
        switch error {
        case .ambiguousAccount: make(.internal, .ambiguousAccount, "more than one account is signed in")
        case .broker(SDKErrors.hubUnreachable): brokerNotAvailable()
        case .broker(let name): deviceError(name)
        }
    }

    static func from(_ error: any Error) -> NSError {
        guard let error = error as? DBusError else { return make(.internal, nil, "\(error)") }
        guard error.name.hasPrefix(DeviceBus.errorPrefix) else { return brokerNotAvailable(error.message) }
        return deviceError(String(error.name.dropFirst(DeviceBus.errorPrefix.count)), error.message)
    }

    /// A broker's refusal: no account, or not this one, means the app must sign in again.
    private static func deviceError(_ name: String, _ message: String = "") -> NSError {
        switch DeviceError(rawValue: name) {
        case .noCurrentAccount?, .accountMismatch?: make(.interactionRequired, nil, message.isEmpty ? name : message)
        default: make(.internal, nil, message.isEmpty ? name : message)
        }
    }
}
