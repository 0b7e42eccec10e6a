import FacadeCore
import Foundation
import SDKClients
import SharedDevice
import Synchronization

/// MSAL's application object, in shared device mode, over the device's broker
/// (Docs/behaviour.md §10). `getCurrentAccount` keeps MSAL's previous-account bookkeeping in
/// the app's keychain across launches; the interactive sign-in takes what the person at the
/// device types (a scenario's `signin` step); without a device every call fails as MSAL does
/// when its broker is missing (`internal`, `brokerNotAvailable`).
public class MSALPublicClientApplication: NSObject {
    public let configuration: MSALPublicClientApplicationConfig

    /// An application object for `configuration`; it asks the device's broker at each call.
    /// It fails as MSAL does when the app's Info.plist does not allow the redirect URI
    /// (Docs/behaviour.md §10); an app without an Info.plist is not checked.
    public init(configuration: MSALPublicClientApplicationConfig) throws {
        self.configuration = configuration
        super.init()
        guard let link = DeviceLink.current, let app = link.appInfo else { return }
        if let (refusal, error) = Self.refusal(of: configuration, in: app) {
            link.listener.sdkRefused(refusal.name, message: refusal.message)
            throw error
        }
    }

    /// Why MSAL would not start with `configuration` in an app with `app`'s Info.plist, and the
    /// error it throws; nil when it starts.
    static func refusal(of configuration: MSALPublicClientApplicationConfig, in app: AppInfo)
        -> (MSALRedirectURI.Refusal, NSError)?
    {
        guard case .failure(let refusal) = MSALRedirectURI.check(configuration.redirectRequest, in: app) else {
            return nil
        }
        return (refusal, MSALErrors.make(.internal, refusal.internalCode, refusal.message))
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
        let call = MSALErrors.facade.call(completingOn: parameters?.completionBlockQueue ?? .global())
        guard let link = call.device(orElse: { completion.value(nil, nil, MSALErrors.brokerNotAvailable()) }) else {
            return
        }
        log.log(.info, "getCurrentAccount")
        guard let client = try? Calls.client(link) else {
            return call.complete {
                completion.value(nil, nil, MSALErrors.make(.internal, nil, "the keychain cannot be opened"))
            }
        }
        link.listener.checkStarted()
        // A post costs every app this call: no task, only the reply's handler.
        client.getCurrentAccount { answer, keychainFailure in
            switch answer {
            case .success(let result):
                var checked = CheckResult(result)
                checked.keychainFailure = keychainFailure
                link.listener.checkFinished(checked)
                let (current, previous) = (result.current.map(MSALAccount.init), result.previous.map(MSALAccount.init))
                call.complete(afterCheck: true) { completion.value(current, previous, nil) }
            case .failure(let error):
                link.listener.checkFailed(error.label)
                call.complete(afterCheck: true) { completion.value(nil, nil, call.error(error)) }
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
        let call = MSALErrors.facade.call(completingOn: parameters?.completionBlockQueue ?? .global())
        guard
            let link = call.device(orElse: {
                completion.value(MSALDeviceInformation(deviceMode: .default), MSALErrors.brokerNotAvailable())
            })
        else { return }
        let broker = Calls.broker(link, configuration.clientId)
        call.run {
            do {
                let shared = try await broker.isSharedDevice()
                call.complete { completion.value(MSALDeviceInformation(deviceMode: shared ? .shared : .default), nil) }
            } catch {
                // As MSAL does: a default device information together with the error.
                call.complete { completion.value(MSALDeviceInformation(deviceMode: .default), call.error(error)) }
            }
        }
    }

    // MARK: - Tokens, sign-in and sign-out

    /// The interactive sign-in: in shared device mode the account becomes the device's, for
    /// every app; on a personal device, an account this app signed out of comes back to it.
    /// What is typed comes from the scenario (`signin` of this app); with nobody at
    /// the device it ends as the user cancelling. Completes on the main queue.
    public func acquireToken(
        with parameters: MSALInteractiveTokenParameters,
        completionBlock: @escaping (MSALResult?, Error?) -> Void
    ) {
        let completion = AppValue(completionBlock)
        let call = MSALErrors.facade.call(completingOn: .main)
        guard let link = call.device(orElse: { completion.value(nil, MSALErrors.brokerNotAvailable()) }) else {
            return
        }
        guard let typed = link.listener.takeCredentials() else {
            return call.complete { completion.value(nil, MSALErrors.make(.userCanceled)) }
        }
        let (broker, scopes, authority) = (
            Calls.broker(link, configuration.clientId), parameters.scopes, AppValue(parameters.authority)
        )
        call.run {
            do {
                let signedIn = try await Calls.client(link).signIn(user: typed.user, password: typed.password)
                let account = MSALAccount(signedIn)
                let result = try await Calls.token(for: account, scopes: scopes, authority: authority.value, broker)
                call.complete { completion.value(result, nil) }
            } catch {
                call.complete { completion.value(nil, call.error(error)) }
            }
        }
    }

    /// A token for an account already signed in, without showing anything.
    public func acquireTokenSilent(
        with parameters: MSALSilentTokenParameters,
        completionBlock: @escaping (MSALResult?, Error?) -> Void
    ) {
        let completion = AppValue(completionBlock)
        let call = MSALErrors.facade.call(completingOn: parameters.completionBlockQueue ?? .global())
        guard let requested = parameters.account else {
            // As MSAL does, before anything else: without an account the app must sign in.
            return call.complete {
                completion.value(nil, MSALErrors.make(.interactionRequired, nil, "no account for the silent request"))
            }
        }
        guard let link = call.device(orElse: { completion.value(nil, MSALErrors.brokerNotAvailable()) }) else {
            return
        }
        let (account, scopes, authority, broker) = (
            AppValue(requested), parameters.scopes, AppValue(parameters.authority),
            Calls.broker(link, configuration.clientId)
        )
        call.run {
            do {
                let result = try await Calls.token(
                    for: account.value, scopes: scopes, authority: authority.value, broker)
                call.complete { completion.value(result, nil) }
            } catch {
                call.complete { completion.value(nil, call.error(error)) }
            }
        }
    }

    /// In shared device mode a global sign-out, for every app (the broker then posts); on a
    /// personal device the account leaves this app alone, and nothing is posted
    /// (Docs/behaviour.md §2). It does not touch the account `getCurrentAccount` compares with.
    /// Completes on the main queue.
    public func signout(
        with account: MSALAccount, signoutParameters: MSALSignoutParameters,
        completionBlock: @escaping (Bool, Error?) -> Void
    ) {
        let completion = AppValue(completionBlock)
        let call = MSALErrors.facade.call(completingOn: .main)
        guard let link = call.device(orElse: { completion.value(false, MSALErrors.brokerNotAvailable()) }) else {
            return
        }
        let id = account.identifier ?? ""
        call.run {
            do {
                try await Calls.client(link).signOut(homeAccountID: id)
                call.complete { completion.value(true, nil) }
            } catch {
                call.complete { completion.value(false, call.error(error)) }
            }
        }
    }

    // MARK: - The accounts in the cache (the broker's)

    /// The accounts the broker has signed in.
    @discardableResult
    public func allAccounts() throws -> [MSALAccount] {
        let call = MSALErrors.facade.call(completingOn: .global())
        guard let link = call.link else { throw MSALErrors.brokerNotAvailable() }
        let answer = call.wait { () -> Result<[BrokerAccount], BrokerError>? in
            try? await Calls.client(link).accounts()
        }
        switch answer {
        case .success(let accounts)??: return accounts.map(MSALAccount.init)
        case .failure(let error)??: throw call.error(error)
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
        MSALErrors.facade.call(completingOn: parameters.completionBlockQueue ?? .global()).complete {
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
    /// Waits for a completion block's outcome, in the caller's isolation. The host hears the app's
    /// code returned after the caller's code that follows the `await` (`AwaitedReturn`).
    nonisolated(nonsending) static func awaiting<Value>(
        _ start: (@escaping (Result<Value, any Error>) -> Void) -> Void
    ) async throws -> Value {
        let awaited = AwaitedReturn()
        defer { awaited.release() }
        let outcome = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<AppValue<Value>, any Error>) in
            AwaitedReturn.$current.withValue(awaited) {
                start { outcome in continuation.resume(with: outcome.map(AppValue.init)) }
            }
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

    static let clients = Mutex<[String: MSALBrokerClient]>([:])

    /// One client per process: its previous-account bookkeeping is the app's, whichever
    /// application object asks.
    static func client(_ link: DeviceLink) throws -> MSALBrokerClient {
        try clients.withLock { clients in
            if let client = clients[link.appName] { return client }
            let keychain = try Keychain(folder: link.keychainFolder + "/msal")
            let client = MSALBrokerClient(
                connection: link.connection, clientID: link.appName, keychain: keychain, hub: link.hub,
                timeout: link.hubTimeout)
            clients[link.appName] = client
            return client
        }
    }

    /// The broker of this process's device, for the calls that need no keychain, as the app's
    /// configured client.
    static func broker(_ link: DeviceLink, _ clientID: String) -> Broker {
        Broker(connection: link.connection, clientID: clientID, hub: link.hub, timeout: link.hubTimeout)
    }

    static func token(
        for account: MSALAccount, scopes: [String], authority: MSALAuthority?, _ broker: Broker
    ) async throws -> MSALResult {
        let token = try await broker.token(homeAccountID: account.identifier ?? "")
        return MSALResult(
            accessToken: token.accessToken, account: account,
            expiresOn: Date(timeIntervalSince1970: TimeInterval(token.expiresOn)), scopes: scopes, authority: authority)
    }
}

extension MSALPublicClientApplicationConfig {
    /// What MSAL's check of the redirect URI reads of this configuration.
    var redirectRequest: MSALRedirectURI.Request {
        MSALRedirectURI.Request(
            redirectURI: redirectUri.map(Self.parts), clientID: clientId,
            brokerAllowed: MSALGlobalConfig.brokerAvailability == .auto,
            organizationalAuthority: authority.isOrganizational, bypass: bypassRedirectURIValidation)
    }

    /// The URI's parts as `NSURL` splits them (none of an unparseable one).
    private static func parts(_ text: String) -> MSALRedirectURI.Parts {
        let url = URL(string: text)
        return MSALRedirectURI.Parts(
            text: text, scheme: url?.scheme ?? "", host: url?.host ?? "", hasFragment: url?.fragment != nil)
    }
}

extension MSALAuthority {
    /// A Microsoft Entra organisation's authority (not B2C, not `consumers`), whose sign-ins go
    /// through the broker.
    var isOrganizational: Bool {
        !(self is MSALB2CAuthority) && !(url.host ?? "").hasSuffix("b2clogin.com")
            && url.pathComponents.dropFirst().first?.lowercased() != "consumers"
    }
}

extension MSALRedirectURI.Refusal {
    /// MSAL's internal code for the refusal (nil: `internal` alone).
    var internalCode: MSALInternalError? {
        switch self {
        case .schemeNotRegistered, .querySchemesNotRegistered: .redirectSchemeNotRegistered
        case .cannotReachBroker: .invalidRedirectURI
        case .fragment: nil
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

    /// The facade's calls, with MSAL's one table from the device's failures to its errors.
    static let facade = Facade(errors: from)

    /// A broker that did not answer is not available; one that refused with no account, or not
    /// this one, means the app must sign in again.
    private static func from(_ failure: DeviceFailure) -> NSError {
        switch failure.reason {
        case .ambiguousAccount: make(.internal, .ambiguousAccount, "more than one account is signed in")
        case .unreachable(let message?): brokerNotAvailable(message)
        case .unreachable(nil): brokerNotAvailable()
        case .refused(let error, let message):
            switch error {
            case .noCurrentAccount, .accountMismatch:
                make(.interactionRequired, nil, message.isEmpty ? error.rawValue : message)
            default: make(.internal, nil, message.isEmpty ? error.rawValue : message)
            }
        case .invalid(let name, let message): make(.internal, nil, message.isEmpty ? name : message)
        case .unexpected(let description): make(.internal, nil, description)
        }
    }
}
