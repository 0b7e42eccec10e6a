import FacadeCore
import Foundation
import SDKClients
import SharedDevice
import Synchronization

/// MSAL Android's factory of application objects.
public enum PublicClientApplication {
    /// `IPublicClientApplication.ISingleAccountApplicationCreatedListener`: told on the main
    /// queue (Android's main looper) whether the application could be made.
    public protocol ISingleAccountApplicationCreatedListener {
        func onCreated(_ application: SingleAccountPublicClientApplication)
        func onError(_ exception: MsalException)
    }

    /// `createSingleAccountPublicClientApplication(context, configFile, listener)`: the
    /// application of the configuration file at `configFile` (MSAL's JSON: `client_id`, and
    /// `account_mode`, which must be `SINGLE`). It takes no `Context`: the app is this process, and
    /// its device (if any) is the one its host installed.
    public static func createSingleAccountPublicClientApplication(
        configFile: String, listener: ISingleAccountApplicationCreatedListener
    ) {
        let listener = AppValue(listener)
        let made = SingleAccountPublicClientApplication.reading(configFile: configFile, link: DeviceLink.current)
        DispatchQueue.main.async {
            switch made {
            case .success(let application): listener.value.onCreated(application)
            case .failure(let exception): listener.value.onError(exception)
            }
        }
    }
}

/// MSAL Android's `ISingleAccountPublicClientApplication` in shared device mode, over the
/// device's broker (Docs/behaviour.md §5). The account it last told the app of is kept in the
/// app's keychain across launches; `getCurrentAccountAsync` reports a change against it, and
/// the app's own `signIn`/`signOut` are guarded on it (never on the broker's account), refused
/// before the broker is asked. Every callback runs on the main queue.
///
/// Outside a device there is no broker, so the app is not in shared device mode and has no
/// account of its own: nobody is signed in, a sign-in has no page to show, and a sign-out has
/// nobody to sign out.
public final class SingleAccountPublicClientApplication: Sendable {
    /// The configuration's `client_id`: whom the broker hears sign in and out.
    public let clientId: String
    private let link: DeviceLink?

    init(clientId: String, link: DeviceLink?) {
        self.clientId = clientId
        self.link = link
    }

    /// `CurrentAccountCallback`, which MSAL nests in `ISingleAccountPublicClientApplication`.
    public protocol CurrentAccountCallback {
        /// The account now signed in (nil: nobody), after every check.
        func onAccountLoaded(_ activeAccount: IAccount?)
        /// The account changed since the app was last told: before `onAccountLoaded`.
        func onAccountChanged(priorAccount: IAccount?, currentAccount: IAccount?)
        func onError(_ exception: MsalException)
    }

    /// `SignOutCallback`, which MSAL nests in `ISingleAccountPublicClientApplication`.
    public protocol SignOutCallback {
        func onSignOut()
        func onError(_ exception: MsalException)
    }

    // MARK: - The current account

    /// Asks the broker whom the device serves: `onAccountChanged` if that is not the account
    /// the app was last told of, then `onAccountLoaded`; or `onError`.
    public func getCurrentAccountAsync(_ callback: CurrentAccountCallback) {
        let callback = AppValue(callback)
        let call = MsalErrors.facade.call(completingOn: .main, in: link)
        guard
            let (link, client) = device(
                for: call, orElse: { callback.value.onAccountLoaded(nil) }, failed: { callback.value.onError($0) })
        else { return }
        link.listener.checkStarted()
        call.run {
            guard let answer = try? await client.getCurrentAccount() else { return }
            switch answer {
            case .success(let callbacks):
                link.listener.checkFinished(await report(callbacks, client))
                call.complete(afterCheck: true) {
                    for made in callbacks {
                        switch made {
                        case .accountChanged(let prior, let current):
                            callback.value.onAccountChanged(
                                priorAccount: prior.map(Account.init), currentAccount: current.map(Account.init))
                        case .accountLoaded(let current): callback.value.onAccountLoaded(current.map(Account.init))
                        }
                    }
                }
            case .failure(let error):
                link.listener.checkFailed(error.label)
                call.complete(afterCheck: true) { callback.value.onError(MsalErrors.exception(error)) }
            }
        }
    }

    /// The blocking form (MSAL's `@WorkerThread getCurrentAccount()`): the same check, answered
    /// on the calling thread, which must not be the main one. The app's code after it is its
    /// own: the host counts the check's app code as returned when this call returns.
    public func getCurrentAccount() throws(MsalException) -> ICurrentAccountResult {
        let call = MsalErrors.facade.call(completingOn: .main, in: link)
        guard let link = call.link else { return CurrentAccountResult(current: nil, prior: nil, changed: false) }
        let client = try Clients.client(link, clientId)
        link.listener.checkStarted()
        defer { link.listener.appCodeReturned(afterCheck: true) }
        let answer = call.wait { () -> Result<([AndroidMSALAccountRule.Callback], CheckResult), BrokerError>? in
            switch try? await client.getCurrentAccount() {
            case .success(let callbacks)?: .success((callbacks, await report(callbacks, client)))
            case .failure(let error)?: .failure(error)
            case nil: nil
            }
        }
        switch answer {
        case .success((let callbacks, let result))??:
            link.listener.checkFinished(result)
            return CurrentAccountResult(callbacks)
        case .failure(let error)??:
            link.listener.checkFailed(error.label)
            throw MsalErrors.exception(error)
        case .some(nil), nil:
            let error = BrokerError.unreachable
            link.listener.checkFailed(error.label)
            throw MsalErrors.exception(error)
        }
    }

    // MARK: - Sign-in and sign-out

    /// Signs the person at the device in, for every app on it; refused (`invalid_parameter`)
    /// while the app has an account. What is typed comes from the device (a scenario's
    /// `signin` of this app); with nobody there the page is dismissed (`onCancel`). The
    /// `activity` the page would be shown over, the `loginHint` and the `scopes` change
    /// nothing here; the result carries the account, no token.
    public func signIn(
        activity: AnyObject?, loginHint: String?, scopes: [String], callback: AuthenticationCallback
    ) {
        let callback = AppValue(callback)
        let call = MsalErrors.facade.call(completingOn: .main, in: link)
        guard
            let (link, client) = device(
                for: call,
                orElse: {
                    callback.value.onError(
                        MsalClientException(
                            errorCode: MsalClientException.BROKER_NOT_INSTALLED,
                            errorMessage: "no broker: this app does not run in a device"))
                }, failed: { callback.value.onError($0) })
        else { return }
        guard let typed = link.listener.takeCredentials() else {
            return call.complete { callback.value.onCancel() }
        }
        call.run {
            do {
                let account = try await client.signIn(user: typed.user, password: typed.password)
                call.complete { callback.value.onSuccess(AuthenticationResult(account: Account(account))) }
            } catch {
                call.complete { callback.value.onError(MsalErrors.exception(error)) }
            }
        }
    }

    /// Signs the device's account out, for every app on it; refused (`no_current_account`)
    /// while the app has no account, even if the broker has one.
    public func signOut(_ callback: SignOutCallback) {
        let callback = AppValue(callback)
        let call = MsalErrors.facade.call(completingOn: .main, in: link)
        guard
            let (_, client) = device(
                for: call,
                orElse: {
                    callback.value.onError(
                        MsalClientException(
                            errorCode: MsalClientException.NO_CURRENT_ACCOUNT,
                            errorMessage: "There is no signed-in account."))
                }, failed: { callback.value.onError($0) })
        else { return }
        call.run {
            do {
                try await client.signOut()
                call.complete { callback.value.onSignOut() }
            } catch {
                call.complete { callback.value.onError(MsalErrors.exception(error)) }
            }
        }
    }

    /// The device and the app's client for `call`; nil once `answer` (no device: what MSAL
    /// answers without a broker) or `failed` (the app's keychain cannot be opened) is queued
    /// for the app.
    private func device(
        for call: FacadeCall, orElse answer: @escaping () -> Void,
        failed: @escaping (MsalException) -> Void
    ) -> (DeviceLink, AndroidMSALBrokerClient)? {
        guard let link = call.device(orElse: answer) else { return nil }
        do {
            return (link, try Clients.client(link, clientId))
        } catch {
            call.complete { failed(error) }
            return nil
        }
    }

    // MARK: - Making one

    /// MSAL's configuration file, the two fields read here.
    private struct ConfigFile: Decodable {
        var clientId: String
        var accountMode: String?

        enum CodingKeys: String, CodingKey {
            case clientId = "client_id"
            case accountMode = "account_mode"
        }
    }

    /// The application of a configuration file, or why there is none.
    static func reading(configFile path: String, link: DeviceLink?) -> Result<
        SingleAccountPublicClientApplication, MsalException
    > {
        guard let bytes = FileManager.default.contents(atPath: path) else {
            return .failure(
                MsalClientException(
                    errorCode: MsalClientException.IO_ERROR, errorMessage: "cannot read the configuration \(path)"))
        }
        guard let file = try? JSONDecoder().decode(ConfigFile.self, from: bytes), !file.clientId.isEmpty else {
            return .failure(
                MsalClientException(
                    errorCode: MsalClientException.JSON_PARSE_FAILURE,
                    errorMessage: "the configuration \(path) has no client_id"))
        }
        // MSAL's default account mode is MULTIPLE: a single-account application must say SINGLE.
        guard file.accountMode == "SINGLE" else {
            return .failure(
                MsalClientException(
                    errorCode: MsalClientException.SINGLE_ACCOUNT_PCA_INIT_FAIL_ACCOUNT_MODE_ERROR_CODE,
                    errorMessage: "AccountMode in configuration is not set to single."))
        }
        return .success(SingleAccountPublicClientApplication(clientId: file.clientId, link: link))
    }
}

/// What one check told the app, as the host traces it: the callbacks, and whether the client
/// could keep the account it reported.
private func report(_ callbacks: [AndroidMSALAccountRule.Callback], _ client: AndroidMSALBrokerClient) async
    -> CheckResult
{
    var result = CheckResult(callbacks)
    result.keychainFailure = await client.keychainFailure
    return result
}

/// The clients of this process, one per keychain: the stored account is the app's, whichever
/// application object asks (as MSAL keeps it in the app's shared preferences). The first
/// application's client id is the one the broker hears.
private enum Clients {
    static let clients = Mutex<[String: AndroidMSALBrokerClient]>([:])

    /// The app's client; its keychain is the folder the built-in app has always kept MSAL
    /// Android's account in, so an account stored before is read back.
    static func client(_ link: DeviceLink, _ clientId: String) throws(MsalException) -> AndroidMSALBrokerClient {
        let folder = link.keychainFolder
        do {
            return try clients.withLock { clients in
                if let client = clients[folder] { return client }
                let client = AndroidMSALBrokerClient(
                    connection: link.connection, clientID: clientId, keychain: try Keychain(folder: folder),
                    hub: link.hub, timeout: link.hubTimeout)
                clients[folder] = client
                return client
            }
        } catch {
            throw MsalClientException(
                errorCode: MsalClientException.UNKNOWN_ERROR,
                errorMessage: "the app's keychain cannot be opened: \(error)")
        }
    }
}
