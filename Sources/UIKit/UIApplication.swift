@_exported import CoreFoundationDarwin
import DeviceHost
import DeviceLink
// UIKit brings Foundation, as on iOS.
@_exported import Foundation

// The slice of UIKit shared-device code touches (Docs/your-app.md): an app delegate's
// lifecycle, `UIApplication`'s state, notifications and background tasks, and a view
// controller to hand to MSAL's sign-in page. The host drives it from the scenario's steps.

/// The base of an app delegate; it responds to nothing here.
open class UIResponder: NSObject {
    public required override init() {}
}

/// An empty view controller, to hand MSAL's sign-in page.
open class UIViewController: UIResponder {}

/// A window that shows nothing; an app delegate may keep one.
open class UIWindow: UIResponder {
    open var rootViewController: UIViewController?

    open func makeKeyAndVisible() {}
}

/// What an app delegate implements; every method is optional.
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

    /// Posted on `NotificationCenter.default` after `application(_:didFinishLaunchingWithOptions:)`;
    /// each of the five below likewise follows the delegate call of its name.
    public static let didFinishLaunchingNotification = AppLifecycleNames.didFinishLaunching
    public static let willEnterForegroundNotification = AppLifecycleNames.willEnterForeground
    public static let didBecomeActiveNotification = AppLifecycleNames.didBecomeActive
    public static let willResignActiveNotification = AppLifecycleNames.willResignActive
    public static let didEnterBackgroundNotification = AppLifecycleNames.didEnterBackground
    public static let willTerminateNotification = AppLifecycleNames.willTerminate

    private let lock = NSLock()
    private var state = State.inactive
    private weak var appDelegate: UIApplicationDelegate?

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

    /// Time the app may still run in the background; unbounded here. (When a background app
    /// is suspended is the device's to decide, from its background time and the tasks open:
    /// Docs/behaviour.md §7.)
    public var backgroundTimeRemaining: TimeInterval { .greatestFiniteMagnitude }

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

/// Drives an app delegate as UIKit does, keeping `applicationState` in step.
final class DelegateLifecycle: AppLifecycleReceiver {
    private let delegate: UIApplicationDelegate
    private var application: UIApplication { .shared }

    init(_ delegate: UIApplicationDelegate) { self.delegate = delegate }

    func didFinishLaunching() {
        application.applicationState = .inactive
        _ = delegate.application(application, didFinishLaunchingWithOptions: nil)
    }

    func willEnterForeground() {
        application.applicationState = .inactive
        delegate.applicationWillEnterForeground(application)
    }

    func didBecomeActive() {
        application.applicationState = .active
        delegate.applicationDidBecomeActive(application)
    }

    func willResignActive() {
        application.applicationState = .inactive
        delegate.applicationWillResignActive(application)
    }

    func didEnterBackground() {
        application.applicationState = .background
        delegate.applicationDidEnterBackground(application)
    }

    func willTerminate() { delegate.applicationWillTerminate(application) }
}
