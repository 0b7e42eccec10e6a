import MSAL
import UIKit

/// The app's window scene: it checks the account each time the scene comes to the foreground
/// (launch included), saves the draft on its way to the background under a background task,
/// and hands the broker's answers to MSAL.
class SceneDelegate: UIResponder, UIWindowSceneDelegate {
    var window: UIWindow?
    private var draftSave = UIBackgroundTaskIdentifier.invalid

    private var appDelegate: AppDelegate? { UIApplication.shared.delegate as? AppDelegate }

    func scene(
        _ scene: UIScene, willConnectTo session: UISceneSession, options connectionOptions: UIScene.ConnectionOptions
    ) {
        guard let windowScene = scene as? UIWindowScene else { return }
        window = UIWindow(windowScene: windowScene)
        window?.rootViewController = UIViewController()
        window?.makeKeyAndVisible()
        NSLog("scene connected: \(session.role.rawValue)")
        self.scene(scene, openURLContexts: connectionOptions.urlContexts)
    }

    func sceneWillEnterForeground(_ scene: UIScene) {
        NSLog("sceneWillEnterForeground")
        guard !AppDelegate.checksInTheAppDelegate else { return }
        appDelegate?.refreshAccount()
    }

    func sceneDidBecomeActive(_ scene: UIScene) {
        NSLog("sceneDidBecomeActive")
    }

    func sceneWillResignActive(_ scene: UIScene) {
        NSLog("sceneWillResignActive")
    }

    func sceneDidEnterBackground(_ scene: UIScene) {
        let application = UIApplication.shared
        draftSave = application.beginBackgroundTask(withName: "save-draft") { [weak self] in
            self?.endDraftSave()
        }
        NSLog("sceneDidEnterBackground: %.0f s of background time left", application.backgroundTimeRemaining)
        appDelegate?.notes.saveDraft()
        endDraftSave()
    }

    func scene(_ scene: UIScene, openURLContexts urlContexts: Set<UIOpenURLContext>) {
        guard let context = urlContexts.first else { return }
        _ = MSALPublicClientApplication.handleMSALResponse(
            context.url, sourceApplication: context.options.sourceApplication)
    }

    private func endDraftSave() {
        guard draftSave != .invalid else { return }
        UIApplication.shared.endBackgroundTask(draftSave)
        draftSave = .invalid
    }
}
