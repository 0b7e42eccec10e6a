import Foundation
import Testing

@testable import DeviceHost
@testable import UIKit

/// What the host's lifecycle calls do to an app, as UIKit does them on iOS: an app delegate
/// without scenes gets every call; a scene-based one launches, and its scene delegate gets the
/// foreground and background. Every notification carries the application or the scene.
@Suite(.serialized) struct SceneLifecycleTests {
    @Test func aSceneBasedAppsSceneDelegateGetsTheForegroundAndBackground() throws {
        let app = SceneApp()
        let lifecycle = DelegateLifecycle(app)
        let heard = Heard()
        lifecycle.didFinishLaunching()
        lifecycle.didBecomeActive()
        let scene = try #require(lifecycle.scene as? UIWindowScene)
        let sceneDelegate = try #require(scene.delegate as? RecordingSceneDelegate)
        #expect(scene.session.role == .windowApplication)
        #expect(scene.session.configuration.name == "Default Configuration")
        #expect(scene.activationState == .foregroundActive)
        #expect(UIApplication.shared.connectedScenes == [scene])
        #expect(UIApplication.shared.applicationState == .active)
        #expect(sceneDelegate.window?.windowScene === scene && scene.keyWindow === sceneDelegate.window)

        lifecycle.willResignActive()
        lifecycle.didEnterBackground()
        #expect(scene.activationState == .background && UIApplication.shared.applicationState == .background)
        lifecycle.willEnterForeground()
        lifecycle.didBecomeActive()
        lifecycle.willTerminate()

        #expect(app.calls == ["didFinishLaunching", "configurationForConnecting", "willTerminate"])
        #expect(
            sceneDelegate.calls == [
                "willConnectTo", "willEnterForeground", "didBecomeActive", "willResignActive", "didEnterBackground",
                "willEnterForeground", "didBecomeActive", "didDisconnect",
            ])
        #expect(UIApplication.shared.connectedScenes.isEmpty)
        let launch: [Heard.Post] = [
            .init("UIApplicationDidFinishLaunchingNotification", .application),
            .init("UISceneWillConnectNotification", .scene),
            .init("UISceneWillEnterForegroundNotification", .scene),
            .init("UIApplicationWillEnterForegroundNotification", .application),
            .init("UISceneDidActivateNotification", .scene),
            .init("UIApplicationDidBecomeActiveNotification", .application),
        ]
        let background: [Heard.Post] = [
            .init("UISceneWillDeactivateNotification", .scene),
            .init("UIApplicationWillResignActiveNotification", .application),
            .init("UISceneDidEnterBackgroundNotification", .scene),
            .init("UIApplicationDidEnterBackgroundNotification", .application),
        ]
        let end: [Heard.Post] = [
            .init("UISceneDidDisconnectNotification", .scene),
            .init("UIApplicationWillTerminateNotification", .application),
        ]
        #expect(heard.posts(scene: scene) == launch + background + launch.dropFirst(2) + end)
    }

    @Test func anAppWithoutScenesGetsEveryCallWithTheApplicationAsTheObject() {
        let app = PlainApp()
        let lifecycle = DelegateLifecycle(app)
        let heard = Heard()
        lifecycle.didFinishLaunching()
        lifecycle.didBecomeActive()
        lifecycle.willResignActive()
        lifecycle.didEnterBackground()
        lifecycle.willEnterForeground()
        lifecycle.didBecomeActive()
        lifecycle.willTerminate()
        #expect(lifecycle.scene == nil && UIApplication.shared.connectedScenes.isEmpty)
        #expect(
            app.calls == [
                "didFinishLaunching", "didBecomeActive", "willResignActive", "didEnterBackground",
                "willEnterForeground", "didBecomeActive", "willTerminate",
            ])
        #expect(
            heard.posts(scene: nil).map(\.name) == [
                "UIApplicationDidFinishLaunchingNotification", "UIApplicationDidBecomeActiveNotification",
                "UIApplicationWillResignActiveNotification", "UIApplicationDidEnterBackgroundNotification",
                "UIApplicationWillEnterForegroundNotification", "UIApplicationDidBecomeActiveNotification",
                "UIApplicationWillTerminateNotification",
            ])
        #expect(heard.posts(scene: nil).allSatisfy { $0.object == .application })
    }

    /// A configuration without a delegate class still makes the app scene-based: its app
    /// delegate is not told of the foreground, as on iOS.
    @Test func aConfigurationWithoutADelegateClassConnectsASceneWithoutDelegate() throws {
        let app = SceneApp(delegateClass: nil)
        let lifecycle = DelegateLifecycle(app)
        lifecycle.didFinishLaunching()
        lifecycle.didBecomeActive()
        lifecycle.willEnterForeground()
        let scene = try #require(lifecycle.scene)
        #expect(scene.delegate == nil)
        #expect(app.calls == ["didFinishLaunching", "configurationForConnecting"])
        lifecycle.willTerminate()
    }

    /// A URL reaches the scene delegate with its source application, or the app delegate's
    /// `application(_:open:options:)` under `.sourceApplication` in an app without scenes.
    @Test func aURLGoesToTheSceneOrToTheAppDelegate() throws {
        let url = try #require(URL(string: "msauth.com.contoso.shifts://auth?code=1"))
        let scenes = DelegateLifecycle(SceneApp())
        scenes.didFinishLaunching()
        scenes.open(url, sourceApplication: "com.microsoft.azureauthenticator")
        let sceneDelegate = try #require(scenes.scene?.delegate as? RecordingSceneDelegate)
        #expect(sceneDelegate.opened.map(\.url) == [url])
        #expect(sceneDelegate.opened.first?.options.sourceApplication == "com.microsoft.azureauthenticator")
        scenes.willTerminate()

        let plain = PlainApp()
        #expect(DelegateLifecycle(plain).open(url, sourceApplication: "com.microsoft.azureauthenticator"))
        #expect(plain.opened == [url.absoluteString + " from com.microsoft.azureauthenticator"])
    }

    @Test func aDelegateClassThatIsNoSceneDelegateGivesNone() {
        #expect(DelegateLifecycle.makeDelegate(of: UIViewController.self) == nil)
        #expect(DelegateLifecycle.makeDelegate(of: RecordingSceneDelegate.self) is RecordingSceneDelegate)
    }
}

/// The lifecycle notifications posted while it lives, with what their object was.
final class Heard: @unchecked Sendable {
    enum Object: Equatable { case application, scene, other }

    struct Post: Equatable {
        let name: String
        let object: Object
        init(_ name: String, _ object: Object) {
            self.name = name
            self.object = object
        }
    }

    private let lock = NSLock()
    private var received: [(name: String, object: AnyObject?)] = []
    private var observer: NSObjectProtocol?

    init() {
        observer = NotificationCenter.default.addObserver(forName: nil, object: nil, queue: nil) { [weak self] note in
            let name = note.name.rawValue
            guard let self, name.hasPrefix("UIApplication") || name.hasPrefix("UIScene") else { return }
            lock.withLock { received.append((name, note.object as AnyObject?)) }
        }
    }

    deinit { observer.map(NotificationCenter.default.removeObserver) }

    /// Each post, its object named: the application, `scene`, or something else.
    func posts(scene: UIScene?) -> [Post] {
        lock.withLock { received }.map { name, object in
            if object === UIApplication.shared { return Post(name, .application) }
            if let scene, object === scene { return Post(name, .scene) }
            return Post(name, .other)
        }
    }
}

final class SceneApp: UIResponder, UIApplicationDelegate {
    var calls: [String] = []
    private var delegateClass: AnyClass? = RecordingSceneDelegate.self

    convenience init(delegateClass: AnyClass?) {
        self.init()
        self.delegateClass = delegateClass
    }

    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        calls.append("didFinishLaunching")
        return true
    }

    func application(
        _ application: UIApplication, configurationForConnecting connectingSceneSession: UISceneSession,
        options: UIScene.ConnectionOptions
    ) -> UISceneConfiguration {
        calls.append("configurationForConnecting")
        let configuration = UISceneConfiguration(
            name: "Default Configuration", sessionRole: connectingSceneSession.role)
        configuration.delegateClass = delegateClass
        return configuration
    }

    func applicationWillEnterForeground(_ application: UIApplication) { calls.append("willEnterForeground") }
    func applicationDidBecomeActive(_ application: UIApplication) { calls.append("didBecomeActive") }
    func applicationWillResignActive(_ application: UIApplication) { calls.append("willResignActive") }
    func applicationDidEnterBackground(_ application: UIApplication) { calls.append("didEnterBackground") }
    func applicationWillTerminate(_ application: UIApplication) { calls.append("willTerminate") }
}

final class RecordingSceneDelegate: UIResponder, UIWindowSceneDelegate {
    var window: UIWindow?
    var calls: [String] = []
    var opened: [UIOpenURLContext] = []

    func scene(
        _ scene: UIScene, willConnectTo session: UISceneSession, options connectionOptions: UIScene.ConnectionOptions
    ) {
        calls.append("willConnectTo")
        guard let windowScene = scene as? UIWindowScene else { return }
        window = UIWindow(windowScene: windowScene)
        window?.makeKeyAndVisible()
    }

    func sceneDidDisconnect(_ scene: UIScene) { calls.append("didDisconnect") }
    func sceneWillEnterForeground(_ scene: UIScene) { calls.append("willEnterForeground") }
    func sceneDidBecomeActive(_ scene: UIScene) { calls.append("didBecomeActive") }
    func sceneWillResignActive(_ scene: UIScene) { calls.append("willResignActive") }
    func sceneDidEnterBackground(_ scene: UIScene) { calls.append("didEnterBackground") }
    func scene(_ scene: UIScene, openURLContexts urlContexts: Set<UIOpenURLContext>) {
        opened += urlContexts
    }
}

final class PlainApp: UIResponder, UIApplicationDelegate {
    var calls: [String] = []
    var opened: [String] = []

    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        calls.append("didFinishLaunching")
        return true
    }

    func applicationWillEnterForeground(_ application: UIApplication) { calls.append("willEnterForeground") }
    func applicationDidBecomeActive(_ application: UIApplication) { calls.append("didBecomeActive") }
    func applicationWillResignActive(_ application: UIApplication) { calls.append("willResignActive") }
    func applicationDidEnterBackground(_ application: UIApplication) { calls.append("didEnterBackground") }
    func applicationWillTerminate(_ application: UIApplication) { calls.append("willTerminate") }

    func application(_ app: UIApplication, open url: URL, options: [UIApplication.OpenURLOptionsKey: Any]) -> Bool {
        opened.append("\(url.absoluteString) from \(options[.sourceApplication] as? String ?? "nil")")
        return true
    }
}

/// A view controller of the app's own, written as iOS code writes one: a designated initialiser
/// of its own, the storyboard initialiser it does not support.
final class ShiftSummaryViewController: UIViewController {
    let worker: String

    init(worker: String) {
        self.worker = worker
        super.init(nibName: nil, bundle: nil)
    }

    required init?(coder: NSCoder) {
        fatalError("init(coder:) has not been implemented")
    }
}

@Suite struct ViewControllerTests {
    @Test func anAppsViewControllerIsMadeWithItsOwnInitialiser() {
        let window = UIWindow(frame: UIScreen.main.bounds)
        window.rootViewController = ShiftSummaryViewController(worker: "cou1")
        #expect((window.rootViewController as? ShiftSummaryViewController)?.worker == "cou1")
    }
}
