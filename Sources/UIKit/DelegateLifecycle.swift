import DeviceHost
import Foundation

/// Drives an app delegate as UIKit does, and for a scene-based app its scene: keeps
/// `applicationState` and the scene's `activationState` in step and posts each notification
/// right after the delegate call it follows, the application's with `UIApplication.shared` as
/// its object and the scene's with the scene. Called by the host on the main queue.
package final class DelegateLifecycle: AppLifecycleReceiver {
    private let delegate: UIApplicationDelegate
    /// The scene connected at launch, when the app delegate's configuration asks for one.
    private(set) var scene: UIScene?
    private var application: UIApplication { .shared }

    package init(_ delegate: UIApplicationDelegate) { self.delegate = delegate }

    /// The app delegate launches; a scene-based app's scene then connects and enters the
    /// foreground (iOS calls `sceneWillEnterForeground` at launch too).
    package func didFinishLaunching() {
        application.applicationState = .inactive
        _ = delegate.application(application, didFinishLaunchingWithOptions: nil)
        postApplication(UIApplication.didFinishLaunchingNotification)
        scene = connectScene()
        if scene != nil { willEnterForeground() }
    }

    package func willEnterForeground() {
        step(
            .inactive, UIApplication.willEnterForegroundNotification, { $0.applicationWillEnterForeground($1) },
            scene: .foregroundInactive, UIScene.willEnterForegroundNotification, { $0.sceneWillEnterForeground($1) })
    }

    package func didBecomeActive() {
        step(
            .active, UIApplication.didBecomeActiveNotification, { $0.applicationDidBecomeActive($1) },
            scene: .foregroundActive, UIScene.didActivateNotification, { $0.sceneDidBecomeActive($1) })
    }

    package func willResignActive() {
        step(
            .inactive, UIApplication.willResignActiveNotification, { $0.applicationWillResignActive($1) },
            scene: .foregroundInactive, UIScene.willDeactivateNotification, { $0.sceneWillResignActive($1) })
    }

    package func didEnterBackground() {
        step(
            .background, UIApplication.didEnterBackgroundNotification, { $0.applicationDidEnterBackground($1) },
            scene: .background, UIScene.didEnterBackgroundNotification, { $0.sceneDidEnterBackground($1) })
    }

    /// One foreground or background step: the application's state, then the app delegate's call,
    /// or for a scene-based app the scene's state, its delegate's call and its notification; then
    /// the application's notification, which iOS posts either way.
    private func step(
        _ state: UIApplication.State, _ applicationNotification: Notification.Name,
        _ appDelegateCall: (UIApplicationDelegate, UIApplication) -> Void,
        scene sceneState: UIScene.ActivationState, _ sceneNotification: Notification.Name,
        _ sceneDelegateCall: (UISceneDelegate, UIScene) -> Void
    ) {
        application.applicationState = state
        if let scene {
            scene.activationState = sceneState
            if let sceneDelegate = scene.delegate { sceneDelegateCall(sceneDelegate, scene) }
            post(sceneNotification, scene)
        } else {
            appDelegateCall(delegate, application)
        }
        postApplication(applicationNotification)
    }

    /// A running app ended: its scene disconnects first (as when the user closes it), then
    /// the app delegate hears it, scene-based or not.
    package func willTerminate() {
        if let scene {
            scene.delegate?.sceneDidDisconnect(scene)
            post(UIScene.didDisconnectNotification, scene)
            application.disconnect(scene)
            self.scene = nil
        }
        delegate.applicationWillTerminate(application)
        postApplication(UIApplication.willTerminateNotification)
    }

    /// Opens a URL as iOS does: the scene delegate's `scene(_:openURLContexts:)` for a
    /// scene-based app, else the app delegate's `application(_:open:options:)`.
    @discardableResult
    package func open(_ url: URL, sourceApplication: String?) -> Bool {
        guard let scene else {
            let options: [UIApplication.OpenURLOptionsKey: Any] =
                sourceApplication.map { [.sourceApplication: $0] } ?? [:]
            return delegate.application(application, open: url, options: options)
        }
        let context = UIOpenURLContext(url: url, options: UIScene.OpenURLOptions(sourceApplication: sourceApplication))
        scene.delegate?.scene(scene, openURLContexts: [context])
        return true
    }

    // MARK: - The scene

    /// Asks the app delegate for the configuration of the app's window scene: when it declares
    /// scenes, makes the scene and its delegate (the configuration's classes) and connects them.
    private func connectScene() -> UIScene? {
        let session = UISceneSession(role: .windowApplication)
        let options = UIScene.ConnectionOptions()
        let configuration = delegate.application(application, configurationForConnecting: session, options: options)
        guard configuration.declaresScenes else { return nil }
        session.configuration = configuration
        let sceneClass = (configuration.sceneClass as? UIScene.Type) ?? UIWindowScene.self
        let scene = sceneClass.init(session: session, connectionOptions: options)
        scene.delegate = Self.makeDelegate(of: configuration.delegateClass)
        session.scene = scene
        application.connect(scene)
        scene.delegate?.scene(scene, willConnectTo: session, options: options)
        post(UIScene.willConnectNotification, scene)
        return scene
    }

    /// An instance of the configuration's delegate class, made with `init()`: a `UIResponder`
    /// subclass, as scene delegates are. Any other class is said on stderr, and the scene then
    /// has no delegate.
    static func makeDelegate(of delegateClass: AnyClass?) -> UISceneDelegate? {
        guard let delegateClass else { return nil }
        guard let delegate = (delegateClass as? UIResponder.Type)?.init() as? UISceneDelegate else {
            FileHandle.standardError.write(
                Data(
                    "UIKit: \(delegateClass) is no UIResponder conforming to UISceneDelegate; the scene has no delegate\n"
                        .utf8))
            return nil
        }
        return delegate
    }

    private func post(_ name: Notification.Name, _ object: AnyObject) {
        NotificationCenter.default.post(name: name, object: object)
    }

    private func postApplication(_ name: Notification.Name) { post(name, application) }
}
