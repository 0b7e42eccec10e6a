import MSAL
import UIKit

/// A shift-notes app written as apps have been since iOS 13, with scenes: the app delegate
/// makes MSAL's client at launch and answers the configuration of the app's scene, whose
/// delegate does the rest (SceneDelegate.swift).
public class AppDelegate: UIResponder, UIApplicationDelegate {
    var msalApplication: MSALPublicClientApplication?
    let notes = ShiftNotes()

    /// The mistake of the broken variant: the account check stayed in the app delegate's launch
    /// and foreground methods, as before scenes. A scene-based app is launched, but never told
    /// of a return to the foreground there.
    public static var checksInTheAppDelegate = false

    public func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        let configuration = MSALPublicClientApplicationConfig(
            clientId: "0c7a2f4e-shifts-4d2b-8e0f-contoso", redirectUri: "msauth.com.contoso.shifts://auth",
            authority: nil)
        do {
            msalApplication = try MSALPublicClientApplication(configuration: configuration)
        } catch {
            NSLog("MSAL could not start: \(error)")
        }
        if AppDelegate.checksInTheAppDelegate { refreshAccount() }
        return true
    }

    public func application(
        _ application: UIApplication, configurationForConnecting connectingSceneSession: UISceneSession,
        options: UIScene.ConnectionOptions
    ) -> UISceneConfiguration {
        let configuration = UISceneConfiguration(
            name: "Default Configuration", sessionRole: connectingSceneSession.role)
        configuration.delegateClass = SceneDelegate.self
        return configuration
    }

    public func application(_ application: UIApplication, didDiscardSceneSessions sceneSessions: Set<UISceneSession>) {
    }

    public func applicationWillEnterForeground(_ application: UIApplication) {
        NSLog("applicationWillEnterForeground")
        if AppDelegate.checksInTheAppDelegate { refreshAccount() }
    }

    /// Where the broker's answer came before scenes; kept for the systems that have none.
    public func application(
        _ app: UIApplication, open url: URL, options: [UIApplication.OpenURLOptionsKey: Any] = [:]
    ) -> Bool {
        MSALPublicClientApplication.handleMSALResponse(
            url, sourceApplication: options[UIApplication.OpenURLOptionsKey.sourceApplication] as? String)
    }

    /// Asks MSAL who is signed in; when the account changed, the previous worker's notes go.
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
                self.notes.removeEverything(of: previousAccount.username ?? "")
            }
            self.notes.currentUser = currentAccount?.username
        }
    }
}
