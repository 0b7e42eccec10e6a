import AWSDK
import DeviceContract
import DeviceProcesses
import FacadeCore
import MSAL
import MSALAndroid
import SDKClients
import SharedDevice
import notify

/// The built-in app's SDK, written on the SDK's facade as a team writes it: how the app hears
/// of a change and asks whom it serves, and its own sign-in and sign-out. What each check's
/// answer means for the app is decided by the domain on the result the facade reported
/// (`BuiltInApp.checkEnded`), the same for every flavour. Used on the main queue only.
@MainActor
protocol SDKFlavour: AnyObject {
    /// The keychain and key name of the app's `sensitive` records.
    var dataKey: (keychain: Keychain, name: String) { get }
    /// Starts the SDK once the app has launched; `heard` runs on each post of the broker's.
    func start(heard: @escaping @MainActor () -> Void)
    /// Asks the SDK whom the app serves (its answer reaches the app through the host). An SDK
    /// that looks only by itself (Workspace ONE, at its start and at each return to the
    /// foreground) does nothing: its own look answers.
    func check()
    /// The app's own interactive sign-in: the user it signed in, or why not.
    func signIn(completion: @escaping (String?, (any Error)?) -> Void)
    func signOut(completion: @escaping ((any Error)?) -> Void)
}

/// The flavour of an app of `kind` in `container`, whose keychain keeps the `sensitive` key
/// when the SDK does not hold it.
@MainActor
func sdkFlavour(_ kind: SDKKind, clientID: String, container: Container) throws -> any SDKFlavour {
    switch kind {
    case .msal: try MSALiOSFlavour(clientID: clientID, keychain: container.keychain)
    case .msalAndroid: try MSALAndroidFlavour(clientID: clientID, keychain: container.keychain, folder: container.root)
    case .ws1: try WorkspaceOneFlavour()
    }
}

/// MSAL for iOS (Docs/behaviour.md §4): the broker's Darwin notification, and
/// `getCurrentAccount` at every check.
@MainActor
final class MSALiOSFlavour: SDKFlavour {
    private let application: MSALPublicClientApplication
    let dataKey: (keychain: Keychain, name: String)
    private var token: Int32 = 0

    init(clientID: String, keychain: Keychain) throws {
        application = try MSALPublicClientApplication(
            configuration: MSALPublicClientApplicationConfig(clientId: clientID))
        dataKey = (keychain, "app-data")
    }

    func start(heard: @escaping @MainActor () -> Void) {
        notify_register_dispatch(NotifyCenter.accountChanged, &token, .main) { _ in
            MainActor.assumeIsolated { heard() }
        }
    }

    func check() {
        let parameters = MSALParameters()
        parameters.completionBlockQueue = .main
        application.getCurrentAccount(with: parameters) { _, _, _ in }
    }

    func signIn(completion: @escaping (String?, (any Error)?) -> Void) {
        let parameters = MSALInteractiveTokenParameters(
            scopes: ["User.Read"], webviewParameters: MSALWebviewParameters(authPresentationViewController: self))
        application.acquireToken(with: parameters) { result, error in completion(result?.account.username, error) }
    }

    /// Signs out the account the broker holds, asked for first (Docs/behaviour.md §4): the one
    /// the latest check returned may be gone or another since (a check-out posts nothing).
    func signOut(completion: @escaping ((any Error)?) -> Void) {
        let account: MSALAccount
        do {
            guard let signedIn = try application.allAccounts().first else {
                return completion(DeviceError.noCurrentAccount.dbusError)
            }
            account = signedIn
        } catch {
            return completion(error)
        }
        let parameters = MSALSignoutParameters(
            webviewParameters: MSALWebviewParameters(authPresentationViewController: self))
        application.signout(with: account, signoutParameters: parameters) { _, error in completion(error) }
    }
}

/// Workspace ONE (Docs/behaviour.md §6): the SDK looks by itself at its start and at each
/// return to the foreground, and never hears a post; it holds the `sensitive` key, and deletes
/// it before `wipe`. Only MSAL apps sign in and out.
@MainActor
final class WorkspaceOneFlavour: SDKFlavour {
    let dataKey: (keychain: Keychain, name: String)
    /// The controller holds its delegate weakly.
    private let delegate = Delegate()

    init() throws {
        // Where the SDK keeps its keys in the app's keychain (the host installed the link).
        guard let link = DeviceLink.current else { throw DeviceError.notSupported.dbusError }
        dataKey = (
            try Keychain(folder: WorkspaceOneController.keychainFolder(in: link.keychainFolder)),
            WorkspaceOneController.dataKeyName
        )
    }

    func start(heard: @escaping @MainActor () -> Void) {
        let controller = AWController.clientInstance()
        controller.delegate = delegate
        controller.start()
    }

    func check() {}

    func signIn(completion: @escaping (String?, (any Error)?) -> Void) {
        completion(nil, DeviceError.notSupported.dbusError)
    }

    func signOut(completion: @escaping ((any Error)?) -> Void) { completion(DeviceError.notSupported.dbusError) }

    /// The app learns what a look found from the result the host hands it; the delegate's
    /// calls are what iOS code hears, and need nothing more here.
    final class Delegate: AWControllerDelegate {
        func controllerDidFinishInitialCheck(error: NSError?) {}
    }
}

/// MSAL for Android (Docs/behaviour.md §5): a single-account application made from its
/// configuration file, the broker's broadcast, and `getCurrentAccountAsync` at every check.
@MainActor
final class MSALAndroidFlavour: SDKFlavour {
    let dataKey: (keychain: Keychain, name: String)
    private let configFile: String
    private var application: SingleAccountPublicClientApplication?
    /// A check asked for before the application was made.
    private var checkWaits = false

    init(clientID: String, keychain: Keychain, folder: String) throws {
        dataKey = (keychain, "app-data")
        configFile = folder + "/auth_config.json"
        let config = #"{"client_id": "\#(clientID)", "account_mode": "SINGLE"}"#
        try AtomicFile.write(Data(config.utf8), to: configFile)
    }

    func start(heard: @escaping @MainActor () -> Void) {
        Context.application.registerReceiver(
            AccountChanged(heard: heard), IntentFilter(AndroidBroker.accountChangedAction))
        PublicClientApplication.createSingleAccountPublicClientApplication(
            configFile: configFile, listener: Created(flavour: self))
    }

    func check() {
        guard let application else { return checkWaits = true }
        application.getCurrentAccountAsync(Ignored())
    }

    func signIn(completion: @escaping (String?, (any Error)?) -> Void) {
        guard let application else { return completion(nil, DeviceError.notSupported.dbusError) }
        application.signIn(activity: nil, loginHint: nil, scopes: ["User.Read"], callback: SignedIn(completion))
    }

    func signOut(completion: @escaping ((any Error)?) -> Void) {
        guard let application else { return completion(DeviceError.notSupported.dbusError) }
        application.signOut(SignedOut(completion))
    }

    private func created(_ made: SingleAccountPublicClientApplication) {
        application = made
        if checkWaits {
            checkWaits = false
            check()
        }
    }

    /// The broker's broadcast, heard as MSAL's shared device docs tell an Android app to.
    private final class AccountChanged: BroadcastReceiver {
        private let heard: @MainActor () -> Void

        init(heard: @escaping @MainActor () -> Void) { self.heard = heard }

        override func onReceive(_ context: Context, _ intent: Intent) {
            let heard = heard
            MainActor.assumeIsolated { heard() }
        }
    }

    private struct Created: PublicClientApplication.ISingleAccountApplicationCreatedListener {
        weak var flavour: MSALAndroidFlavour?
        func onCreated(_ application: SingleAccountPublicClientApplication) {
            MainActor.assumeIsolated { flavour?.created(application) }
        }
        func onError(_ exception: MsalException) {}
    }

    /// The app learns what a check found from the result the host hands it.
    private struct Ignored: SingleAccountPublicClientApplication.CurrentAccountCallback {
        func onAccountLoaded(_ activeAccount: IAccount?) {}
        func onAccountChanged(priorAccount: IAccount?, currentAccount: IAccount?) {}
        func onError(_ exception: MsalException) {}
    }

    private struct SignedIn: AuthenticationCallback {
        let completion: (String?, (any Error)?) -> Void
        init(_ completion: @escaping (String?, (any Error)?) -> Void) { self.completion = completion }
        func onSuccess(_ authenticationResult: IAuthenticationResult) {
            completion(authenticationResult.account.username, nil)
        }
        func onError(_ exception: MsalException) { completion(nil, exception) }
        func onCancel() { completion(nil, DeviceError.invalidParameter.dbusError) }
    }

    private struct SignedOut: SingleAccountPublicClientApplication.SignOutCallback {
        let completion: ((any Error)?) -> Void
        init(_ completion: @escaping ((any Error)?) -> Void) { self.completion = completion }
        func onSignOut() { completion(nil) }
        func onError(_ exception: MsalException) { completion(exception) }
    }
}
