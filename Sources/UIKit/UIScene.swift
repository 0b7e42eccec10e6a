import Foundation

// The scene lifecycle of iOS 13 and later, as scene-based apps are written: the app delegate
// answers a configuration naming the scene delegate's class, and the scene delegate gets the
// foreground and background events. The host connects one window scene at launch.

/// One instance of the app's interface; the host connects one at launch when the app delegate's
/// configuration names a delegate class.
open class UIScene: UIResponder {
    /// Where a scene is in its lifecycle.
    public enum ActivationState: Int, Sendable {
        case unattached = -1
        case foregroundActive, foregroundInactive, background
    }

    /// The session the scene belongs to.
    public let session: UISceneSession
    /// The scene's delegate (strong, as on iOS): the configuration's `delegateClass`.
    open var delegate: UISceneDelegate?
    /// `unattached` until it enters the foreground; follows the lifecycle after.
    open internal(set) var activationState = ActivationState.unattached
    open var title: String!

    public required init(session: UISceneSession, connectionOptions: UIScene.ConnectionOptions) {
        self.session = session
        super.init()
    }

    public required convenience init() {
        self.init(session: UISceneSession(role: .windowApplication), connectionOptions: UIScene.ConnectionOptions())
    }

    /// Posted after `scene(_:willConnectTo:options:)`, with the scene as its object; each below
    /// likewise follows the scene delegate's call of its name.
    public static let willConnectNotification = Notification.Name("UISceneWillConnectNotification")
    public static let didDisconnectNotification = Notification.Name("UISceneDidDisconnectNotification")
    public static let willEnterForegroundNotification = Notification.Name("UISceneWillEnterForegroundNotification")
    public static let didActivateNotification = Notification.Name("UISceneDidActivateNotification")
    public static let willDeactivateNotification = Notification.Name("UISceneWillDeactivateNotification")
    public static let didEnterBackgroundNotification = Notification.Name("UISceneDidEnterBackgroundNotification")
}

extension UIScene {
    /// Why the scene connects; the host connects it at launch with no URL and no activity.
    open class ConnectionOptions: NSObject {
        /// URLs to open, when a URL launched the app.
        public let urlContexts: Set<UIOpenURLContext>
        /// The bundle identifier of the app that asked for the connection.
        public let sourceApplication: String?
        public let handoffUserActivityType: String?

        public init(
            urlContexts: Set<UIOpenURLContext> = [], sourceApplication: String? = nil,
            handoffUserActivityType: String? = nil
        ) {
            self.urlContexts = urlContexts
            self.sourceApplication = sourceApplication
            self.handoffUserActivityType = handoffUserActivityType
        }
    }

    /// How a URL was opened, as `scene(_:openURLContexts:)` receives it.
    open class OpenURLOptions: NSObject {
        /// The bundle identifier of the app that opened the URL (MSAL's broker, say).
        public let sourceApplication: String?
        public let annotation: Any?
        public let openInPlace: Bool

        public init(sourceApplication: String? = nil, annotation: Any? = nil, openInPlace: Bool = false) {
            self.sourceApplication = sourceApplication
            self.annotation = annotation
            self.openInPlace = openInPlace
        }
    }
}

/// A scene with windows: what the host connects.
open class UIWindowScene: UIScene {
    /// The windows made with `UIWindow(windowScene:)`.
    open internal(set) var windows: [UIWindow] = []
    /// The window last made key in this scene.
    open var keyWindow: UIWindow? { windows.last { $0.isKeyWindow } }
}

/// A scene's session: its role and the configuration it was connected with.
open class UISceneSession: NSObject {
    /// What kind of scene a session is for.
    public struct Role: Hashable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
        /// The app's interactive window: the role of the scene the host connects.
        public static let windowApplication = Role("UIWindowSceneSessionRoleApplication")
        public static let windowExternalDisplayNonInteractive = Role(
            "UIWindowSceneSessionRoleExternalDisplayNonInteractive")
    }

    public let role: Role
    /// The configuration the app delegate answered.
    open internal(set) var configuration: UISceneConfiguration
    /// The connected scene, if any.
    open internal(set) weak var scene: UIScene?
    public let persistentIdentifier: String
    open var userInfo: [String: Any]?

    init(role: Role) {
        self.role = role
        configuration = UISceneConfiguration(name: nil, sessionRole: role)
        persistentIdentifier = UUID().uuidString
    }
}

/// What a scene is made of: the app delegate answers one from
/// `application(_:configurationForConnecting:options:)`. Here the configuration is what says the
/// app is scene-based (there is no Info.plist scene manifest): its `delegateClass` is made the
/// scene's delegate.
open class UISceneConfiguration: NSObject {
    public let name: String?
    public let role: UISceneSession.Role
    /// The scene's class (nil: `UIWindowScene`).
    open var sceneClass: AnyClass?
    /// The scene delegate's class: a `UIResponder` subclass conforming to `UISceneDelegate`.
    open var delegateClass: AnyClass?
    /// Kept as on iOS; there is no interface to load here.
    open var storyboard: UIStoryboard?

    /// False for the one an app delegate without scenes answers by default: the app then has none.
    let declaresScenes: Bool

    public convenience init(name: String?, sessionRole: UISceneSession.Role) {
        self.init(name: name, sessionRole: sessionRole, declaresScenes: true)
    }

    init(name: String?, sessionRole: UISceneSession.Role, declaresScenes: Bool) {
        self.name = name
        self.role = sessionRole
        self.declaresScenes = declaresScenes
    }

    /// What an app delegate that declares no scenes answers.
    static func none(for role: UISceneSession.Role) -> UISceneConfiguration {
        UISceneConfiguration(name: nil, sessionRole: role, declaresScenes: false)
    }
}

/// A storyboard names an interface; there is none to load here.
open class UIStoryboard: NSObject {
    public let name: String

    public init(name: String, bundle storyboardBundleOrNil: Bundle?) {
        self.name = name
    }

    open func instantiateInitialViewController() -> UIViewController? { UIViewController() }
}

/// A URL the app is asked to open, with how it was opened.
open class UIOpenURLContext: NSObject {
    public let url: URL
    public let options: UIScene.OpenURLOptions

    public init(url: URL, options: UIScene.OpenURLOptions = UIScene.OpenURLOptions()) {
        self.url = url
        self.options = options
    }
}

/// What a scene delegate implements; every method is optional. For a scene-based app the host
/// calls these, and not the app delegate's foreground and background methods, as iOS does.
public protocol UISceneDelegate: AnyObject {
    func scene(
        _ scene: UIScene, willConnectTo session: UISceneSession, options connectionOptions: UIScene.ConnectionOptions)
    func sceneDidDisconnect(_ scene: UIScene)
    func sceneWillEnterForeground(_ scene: UIScene)
    func sceneDidBecomeActive(_ scene: UIScene)
    func sceneWillResignActive(_ scene: UIScene)
    func sceneDidEnterBackground(_ scene: UIScene)
    func scene(_ scene: UIScene, openURLContexts urlContexts: Set<UIOpenURLContext>)
}

extension UISceneDelegate {
    public func scene(
        _ scene: UIScene, willConnectTo session: UISceneSession, options connectionOptions: UIScene.ConnectionOptions
    ) {}
    public func sceneDidDisconnect(_ scene: UIScene) {}
    public func sceneWillEnterForeground(_ scene: UIScene) {}
    public func sceneDidBecomeActive(_ scene: UIScene) {}
    public func sceneWillResignActive(_ scene: UIScene) {}
    public func sceneDidEnterBackground(_ scene: UIScene) {}
    public func scene(_ scene: UIScene, openURLContexts urlContexts: Set<UIOpenURLContext>) {}
}

/// A window scene's delegate, which usually keeps the scene's window.
public protocol UIWindowSceneDelegate: UISceneDelegate {
    var window: UIWindow? { get set }
}

extension UIWindowSceneDelegate {
    public var window: UIWindow? {
        get { nil }
        set {}
    }
}
