import MSAL
import UIKit

/// A notes app for frontline workers on a shared phone, written as an iOS team writes it
/// against MSAL in shared device mode, with scenes: the app delegate makes MSAL's client at
/// launch, listens for the broker's account-change notification and answers the scene's
/// configuration; the scene delegate (SceneDelegate.swift) checks the account each time
/// the app comes to the foreground. A changed account means the previous worker's data goes.
@main
class AppDelegate: UIResponder, UIApplicationDelegate {
    var msalApplication: MSALPublicClientApplication?
    let notes = NotesStore()
    private var accountChanges: AccountChangeObserver?

    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        let configuration = MSALPublicClientApplicationConfig(
            clientId: "00000000-0000-0000-0000-000000000000", redirectUri: "msauth.com.contoso.notes://auth",
            authority: nil)
        do {
            msalApplication = try MSALPublicClientApplication(configuration: configuration)
        } catch {
            NSLog("MSAL could not start: \(error)")
        }
        // The broker posts this on every global sign-in and sign-out. It carries nothing:
        // the app asks MSAL what changed.
        accountChanges = AccountChangeObserver(name: "SHARED_MODE_CURRENT_ACCOUNT_CHANGED") { [weak self] in
            self?.refreshAccount()
        }
        return true
    }

    func application(
        _ application: UIApplication, configurationForConnecting connectingSceneSession: UISceneSession,
        options: UIScene.ConnectionOptions
    ) -> UISceneConfiguration {
        let configuration = UISceneConfiguration(
            name: "Default Configuration", sessionRole: connectingSceneSession.role)
        configuration.delegateClass = SceneDelegate.self
        return configuration
    }

    /// Asks MSAL who is signed in; a changed account means the previous worker's data goes.
    func refreshAccount() {
        let parameters = MSALParameters()
        parameters.completionBlockQueue = DispatchQueue.main
        msalApplication?.getCurrentAccount(with: parameters) { [weak self] currentAccount, previousAccount, error in
            guard let self = self else { return }
            if let error = error {
                NSLog("getCurrentAccount failed: \(error)")
                return
            }
            if let previousAccount = previousAccount, previousAccount.identifier != currentAccount?.identifier {
                self.notes.removeEverything(of: previousAccount.username ?? "")
            }
            self.notes.currentUser = currentAccount?.username
        }
    }
}
