import Foundation
import MSAL
import UIKit

/// A notes app for frontline workers, written as an iOS team writes it against MSAL in
/// shared device mode: it listens for the broker's account-change notification, asks
/// `getCurrentAccount` at launch, on every return to the foreground and on each notification,
/// and when the account changed removes the previous worker's notes.
public class AppDelegate: UIResponder, UIApplicationDelegate {
    var window: UIWindow?
    var msalApplication: MSALPublicClientApplication?
    let store = NotesStore()
    private var watcher: AccountChangeWatcher?

    public func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        let configuration = MSALPublicClientApplicationConfig(
            clientId: "6b5e4a1f-notes-4c1e-9b1e-contoso", redirectUri: "msauth.com.contoso.notes://auth",
            authority: nil)
        msalApplication = try? MSALPublicClientApplication(configuration: configuration)
        watcher = AccountChangeWatcher { [weak self] in self?.refreshAccount() }
        refreshAccount()
        return true
    }

    public func applicationWillEnterForeground(_ application: UIApplication) {
        refreshAccount()
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
                self.store.removeEverything(of: previousAccount.username ?? "")
            }
            self.store.currentUser = currentAccount?.username
        }
    }
}
