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
        MSALGlobalConfig.loggerConfig.logLevel = .verbose
        MSALGlobalConfig.loggerConfig.setLogCallback { level, message, containsPII in
            if let message = message, !containsPII { print("MSAL [\(level.rawValue)] \(message)") }
        }
        let configuration = MSALPublicClientApplicationConfig(
            clientId: "6b5e4a1f-notes-4c1e-9b1e-contoso", redirectUri: "msauth.com.contoso.notes://auth",
            authority: nil)
        msalApplication = try? MSALPublicClientApplication(configuration: configuration)
        watcher = AccountChangeWatcher { [weak self] in self?.refreshAccount() }
        refreshAccount()
        return true
    }

    /// Whether the app asks once more on its way to the background, so that a change it was
    /// not told of (an account removed in Settings posts nothing) is cleaned up before it is
    /// suspended. It asks under a background task, which it ends once done: iOS would
    /// otherwise suspend it before the answer came.
    public static var checksOnTheWayToTheBackground = false
    private var backgroundCheck = UIBackgroundTaskIdentifier.invalid

    public func applicationWillEnterForeground(_ application: UIApplication) {
        refreshAccount()
    }

    /// Whether the app uploads its notes on its way to the background under a background task
    /// whose expiration handler forgets to end it (the mistake): iOS ends such an app when its
    /// background time is up.
    public static var syncsWithoutEndingItsTask = false
    private var sync = UIBackgroundTaskIdentifier.invalid

    public func applicationDidEnterBackground(_ application: UIApplication) {
        if AppDelegate.syncsWithoutEndingItsTask, sync == .invalid {
            sync = application.beginBackgroundTask(withName: "sync-notes") {
                print("sync-notes: out of background time")  // and the task is never ended
            }
        }
        guard AppDelegate.checksOnTheWayToTheBackground, backgroundCheck == .invalid else { return }
        backgroundCheck = application.beginBackgroundTask(withName: "check-account") { [weak self] in
            self?.endBackgroundCheck(application)
        }
        refreshAccount { [weak self] in self?.endBackgroundCheck(application) }
    }

    private func endBackgroundCheck(_ application: UIApplication) {
        guard backgroundCheck != .invalid else { return }
        application.endBackgroundTask(backgroundCheck)
        backgroundCheck = .invalid
    }

    /// Asks MSAL who is signed in; a changed account means the previous worker's data goes.
    /// `done` runs on the main queue once that is dealt with.
    func refreshAccount(then done: @escaping () -> Void = {}) {
        let parameters = MSALParameters()
        parameters.completionBlockQueue = DispatchQueue.main
        msalApplication?.getCurrentAccount(with: parameters) { [weak self] currentAccount, previousAccount, error in
            defer { done() }
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
