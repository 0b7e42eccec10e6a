@_exported import CoreFoundationDarwin
import DeviceHost
import FacadeCore
// UIKit brings Foundation, as on iOS.
@_exported import Foundation

// The slice of UIKit shared-device code touches (Docs/your-app.md): an app delegate's
// lifecycle, the scene lifecycle of iOS 13 and later (UIScene.swift), `UIApplication`'s state,
// notifications and background tasks, and a view controller to hand to MSAL's sign-in page.
// The host drives it from the scenario's steps (DelegateLifecycle.swift).

/// The base of an app delegate; it responds to nothing here.
open class UIResponder: NSObject {
    public required override init() {}
}

/// A view controller that shows nothing: one to hand MSAL's sign-in page, or a screen an app
/// presents. Its initialisers are iOS's, so a subclass with one of its own compiles as there
/// (`super.init(nibName: nil, bundle: nil)` and `required init?(coder:)`). Not a `UIResponder`
/// here: that one's `init()` is required, so that the host can make the app's delegates, and a
/// view controller's must not be. Its view is loaded when first asked for (`loadView`, then
/// `viewDidLoad`); presenting one records it and calls the completion, and nothing appears.
open class UIViewController: NSObject {
    private var loadedView: UIView?
    open var title: String?
    open var modalPresentationStyle = UIModalPresentationStyle.automatic
    open private(set) var presentedViewController: UIViewController?
    open private(set) weak var presentingViewController: UIViewController?

    public init(nibName nibNameOrNil: String?, bundle nibBundleOrNil: Bundle?) {
        super.init()
    }

    public required init?(coder: NSCoder) {
        super.init()
    }

    public convenience override init() {
        self.init(nibName: nil, bundle: nil)
    }

    /// The controller's view, loaded the first time it is asked for.
    open var view: UIView! {
        get {
            if loadedView == nil {
                loadView()
                viewDidLoad()
            }
            return loadedView
        }
        set { loadedView = newValue }
    }

    open var isViewLoaded: Bool { loadedView != nil }
    open func loadView() { loadedView = UIView(frame: UIScreen.main.bounds) }
    open func viewDidLoad() {}
    open func viewWillAppear(_ animated: Bool) {}
    open func viewDidAppear(_ animated: Bool) {}
    open func viewWillDisappear(_ animated: Bool) {}
    open func viewDidDisappear(_ animated: Bool) {}

    open func present(
        _ viewControllerToPresent: UIViewController, animated flag: Bool, completion: (() -> Void)? = nil
    ) {
        presentedViewController = viewControllerToPresent
        viewControllerToPresent.presentingViewController = self
        completion?()
    }

    open func dismiss(animated flag: Bool, completion: (() -> Void)? = nil) {
        let presented = presentedViewController ?? self
        presented.presentingViewController?.presentedViewController = nil
        presented.presentingViewController = nil
        completion?()
    }
}

/// A window that shows nothing; an app delegate or a scene delegate may keep one.
open class UIWindow: UIResponder {
    open var rootViewController: UIViewController?
    /// The scene the window belongs to (`UIWindow(windowScene:)`).
    open weak var windowScene: UIWindowScene?
    open private(set) var isKeyWindow = false

    public required init() {}

    /// A window of `windowScene`, as a scene delegate makes one in `scene(_:willConnectTo:options:)`.
    public init(windowScene: UIWindowScene) {
        self.windowScene = windowScene
        super.init()
        windowScene.windows.append(self)
    }

    /// A window of the given size, as an app delegate without scenes makes one.
    public init(frame: CGRect) {}

    open func makeKeyAndVisible() {
        for window in windowScene?.windows ?? [] { window.isKeyWindow = false }
        isKeyWindow = true
    }
}

/// The device's screen, for `UIWindow(frame: UIScreen.main.bounds)`.
open class UIScreen: NSObject, @unchecked Sendable {
    public static let main = UIScreen()
    /// An iPhone's screen, in points.
    open var bounds: CGRect { CGRect(x: 0, y: 0, width: 390, height: 844) }
}

/// What an app delegate implements; every method is optional. For a scene-based app (one whose
/// `application(_:configurationForConnecting:options:)` answers a configuration) the host calls
/// its scene delegate instead of the four foreground and background methods, as iOS does.
public protocol UIApplicationDelegate: AnyObject {
    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool
    func applicationWillEnterForeground(_ application: UIApplication)
    func applicationDidBecomeActive(_ application: UIApplication)
    func applicationWillResignActive(_ application: UIApplication)
    func applicationDidEnterBackground(_ application: UIApplication)
    func applicationWillTerminate(_ application: UIApplication)
    /// A URL opened in an app without scenes (MSAL's broker answers this way).
    func application(
        _ app: UIApplication, open url: URL, options: [UIApplication.OpenURLOptionsKey: Any]
    ) -> Bool
    /// Asked once at launch: a configuration whose `delegateClass` is set makes the app scene-based.
    func application(
        _ application: UIApplication, configurationForConnecting connectingSceneSession: UISceneSession,
        options: UIScene.ConnectionOptions
    ) -> UISceneConfiguration
    /// Sessions the user closed while the app was not running; none are, here.
    func application(_ application: UIApplication, didDiscardSceneSessions sceneSessions: Set<UISceneSession>)
    /// Whether the app lets extensions of the kind in (enterprise apps refuse custom keyboards);
    /// nothing here asks.
    func application(
        _ application: UIApplication,
        shouldAllowExtensionPointIdentifier extensionPointIdentifier: UIApplication.ExtensionPointIdentifier
    ) -> Bool
}

extension UIApplicationDelegate {
    public func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool { true }
    public func applicationWillEnterForeground(_ application: UIApplication) {}
    public func applicationDidBecomeActive(_ application: UIApplication) {}
    public func applicationWillResignActive(_ application: UIApplication) {}
    public func applicationDidEnterBackground(_ application: UIApplication) {}
    public func applicationWillTerminate(_ application: UIApplication) {}
    public func application(
        _ app: UIApplication, open url: URL, options: [UIApplication.OpenURLOptionsKey: Any]
    ) -> Bool { false }
    /// Without this method an app has no scenes (as on iOS without a scene manifest).
    public func application(
        _ application: UIApplication, configurationForConnecting connectingSceneSession: UISceneSession,
        options: UIScene.ConnectionOptions
    ) -> UISceneConfiguration { UISceneConfiguration.none(for: connectingSceneSession.role) }
    public func application(_ application: UIApplication, didDiscardSceneSessions sceneSessions: Set<UISceneSession>) {}
    public func application(
        _ application: UIApplication,
        shouldAllowExtensionPointIdentifier extensionPointIdentifier: UIApplication.ExtensionPointIdentifier
    ) -> Bool { true }
}

extension UIApplicationDelegate where Self: UIResponder {
    /// `@main` on an app delegate: the host prepares the device before the delegate exists (so
    /// that even its stored properties find their folders in the container), then runs it.
    /// When the delegate also is a `DeviceLabApp`, the scenario's records reach it.
    public static func main() {
        let host = DeviceHost.prepare()
        let delegate = Self()
        UIApplication.shared.delegate = delegate
        host.run(lifecycle: DelegateLifecycle(delegate), app: delegate as? DeviceLabApp)
    }
}

/// The application object: its state follows the lifecycle the host drives.
public final class UIApplication: UIResponder, @unchecked Sendable {
    /// The process's application object.
    public static let shared = UIApplication()

    /// Whether the app is in the foreground and active.
    public enum State: Int, Sendable {
        case active, inactive, background
    }

    /// The keys of the launch options; the host launches every app without any.
    public struct LaunchOptionsKey: Hashable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let url = LaunchOptionsKey(rawValue: "UIApplicationLaunchOptionsURLKey")
    }

    /// A kind of app extension an app may refuse.
    public struct ExtensionPointIdentifier: Hashable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let keyboard = ExtensionPointIdentifier(rawValue: "com.apple.keyboard-service")
    }

    /// The keys of `application(_:open:options:)`'s options.
    public struct OpenURLOptionsKey: Hashable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The bundle identifier of the app that opened the URL (a `String`).
        public static let sourceApplication = OpenURLOptionsKey(
            rawValue: "UIApplicationOpenURLOptionsSourceApplicationKey")
        public static let annotation = OpenURLOptionsKey(rawValue: "UIApplicationOpenURLOptionsAnnotationKey")
        /// Whether the file is to be opened where it is (a `Bool`).
        public static let openInPlace = OpenURLOptionsKey(rawValue: "UIApplicationOpenURLOptionsOpenInPlaceKey")
    }

    /// Posted on `NotificationCenter.default` after `application(_:didFinishLaunchingWithOptions:)`,
    /// with the application as its object; each of the five below likewise follows the delegate
    /// call of its name, or for a scene-based app the scene's (where iOS posts them whether the
    /// app uses scenes or not): `willEnterForegroundNotification` then comes at launch too, as
    /// the app as a whole enters the foreground.
    public static let didFinishLaunchingNotification = AppLifecycleNames.didFinishLaunching
    public static let willEnterForegroundNotification = AppLifecycleNames.willEnterForeground
    public static let didBecomeActiveNotification = AppLifecycleNames.didBecomeActive
    public static let willResignActiveNotification = AppLifecycleNames.willResignActive
    public static let didEnterBackgroundNotification = AppLifecycleNames.didEnterBackground
    public static let willTerminateNotification = AppLifecycleNames.willTerminate

    private let lock = NSLock()
    private var state = State.inactive
    private weak var appDelegate: UIApplicationDelegate?
    private var scenes: Set<UIScene> = []

    /// `inactive` while launching or changing state, `active` in the foreground, `background`.
    public var applicationState: State {
        get { lock.withLock { state } }
        set { lock.withLock { state = newValue } }
    }

    /// The app delegate (weak); `@main` sets it.
    public var delegate: UIApplicationDelegate? {
        get { lock.withLock { appDelegate } }
        set { lock.withLock { appDelegate = newValue } }
    }

    /// The scenes connected: the one the host connects at launch for a scene-based app; none otherwise.
    public var connectedScenes: Set<UIScene> { lock.withLock { scenes } }

    /// The sessions of the connected scenes.
    public var openSessions: Set<UISceneSession> { Set(connectedScenes.map(\.session)) }

    /// One scene at a time here.
    public var supportsMultipleScenes: Bool { false }

    /// Whether another app would open `url`: none is installed here to open anything.
    public func canOpenURL(_ url: URL) -> Bool { false }

    /// Opens `url` in the app that handles it: none here, so the completion is told `false`.
    public func open(
        _ url: URL, options: [OpenExternalURLOptionsKey: Any] = [:], completionHandler: ((Bool) -> Void)? = nil
    ) {
        completionHandler?(false)
    }

    public struct OpenExternalURLOptionsKey: Hashable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let universalLinksOnly = OpenExternalURLOptionsKey(
            rawValue: "UIApplicationOpenURLOptionUniversalLinksOnly")
    }

    /// The windows of the connected scenes (deprecated on iOS 15, still written).
    public var windows: [UIWindow] { connectedScenes.compactMap { $0 as? UIWindowScene }.flatMap(\.windows) }

    func connect(_ scene: UIScene) { lock.withLock { _ = scenes.insert(scene) } }
    func disconnect(_ scene: UIScene) { lock.withLock { _ = scenes.remove(scene) } }

    /// Time the app may still run in the background before the device suspends it: unbounded
    /// (`greatestFiniteMagnitude`) in the foreground or with background mode; in the background,
    /// the device's grace, or its background task time while a task is open, less the time since
    /// the app entered the background; 0 once it is up. The device decides when the app is
    /// suspended (Docs/behaviour.md §7); this counts the time it gives.
    public var backgroundTimeRemaining: TimeInterval { HostedBackgroundTasks.shared.timeRemaining() }

    /// Asks for more time in the background: while a task is open, an app sent to the background
    /// runs until the device's background task time is up (about 30 s, as on iOS) rather than
    /// the grace (about 5 s). `handler` runs on the main queue if that time runs out first; end
    /// the task in it. The device hears of every task begun and ended.
    public func beginBackgroundTask(withName name: String?, expirationHandler handler: (() -> Void)?)
        -> UIBackgroundTaskIdentifier
    {
        UIBackgroundTaskIdentifier(rawValue: HostedBackgroundTasks.shared.begin(name: name, expirationHandler: handler))
    }

    /// As `beginBackgroundTask(withName:expirationHandler:)`, without a name.
    public func beginBackgroundTask(expirationHandler handler: (() -> Void)?) -> UIBackgroundTaskIdentifier {
        beginBackgroundTask(withName: nil, expirationHandler: handler)
    }

    /// Ends a task: once none is open and the grace has passed, a background app is suspended.
    public func endBackgroundTask(_ identifier: UIBackgroundTaskIdentifier) {
        HostedBackgroundTasks.shared.end(identifier.rawValue)
    }

    /// The background tasks not ended yet.
    var openBackgroundTasks: Int { HostedBackgroundTasks.shared.count }
}

/// A background task, to end with `endBackgroundTask(_:)`.
public struct UIBackgroundTaskIdentifier: Hashable, RawRepresentable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let invalid = UIBackgroundTaskIdentifier(rawValue: 0)
}
