import MSAL
import UIKit

/// The app's window scene: it checks the account each time it comes to the foreground (its
/// first connection included) and hands the broker's answers to MSAL.
class SceneDelegate: UIResponder, UIWindowSceneDelegate {
    var window: UIWindow?

    func scene(
        _ scene: UIScene, willConnectTo session: UISceneSession, options connectionOptions: UIScene.ConnectionOptions
    ) {
        guard let windowScene = scene as? UIWindowScene else { return }
        window = UIWindow(windowScene: windowScene)
        window?.rootViewController = UIViewController()
        window?.makeKeyAndVisible()
    }

    func sceneWillEnterForeground(_ scene: UIScene) {
        (UIApplication.shared.delegate as? AppDelegate)?.refreshAccount()
    }

    func scene(_ scene: UIScene, openURLContexts urlContexts: Set<UIOpenURLContext>) {
        guard let urlContext = urlContexts.first else { return }
        MSALPublicClientApplication.handleMSALResponse(
            urlContext.url, sourceApplication: urlContext.options.sourceApplication)
    }
}
