import DBusKit
import SharedDevice

/// The device's bus contract (Bus/*.xml): the hub's name and object, its interfaces and their
/// members, and the notification path. Every process names them from here.
public enum DeviceBus {
    public static let hubName = "dev.sdlab.Hub"
    public static let hubPath: ObjectPath = "/dev/sdlab/Hub"
    /// Posts are `Posted(name)` signals from this path, whoever sends them.
    public static let notifyPath: ObjectPath = "/dev/sdlab/Notify"
    /// Error replies are named `dev.sdlab.Error.<Name>`.
    public static let errorPrefix = "dev.sdlab.Error."
}

/// A method of an interface of the hub object.
public protocol HubMember: RawRepresentable<String>, Sendable {
    static var interface: String { get }
}

/// `dev.sdlab.Hub1`: enrollment and sessions (Workspace ONE's Hub).
public enum HubMethod: String, HubMember, CaseIterable {
    case enroll = "Enroll", checkOut = "CheckOut", checkIn = "CheckIn", getSession = "GetSession"
    case getUserInfo = "GetUserInfo", setOnline = "SetOnline", lock = "Lock", unlock = "Unlock"
    case enterpriseWipe = "EnterpriseWipe"
    public static let interface = "dev.sdlab.Hub1"

    /// The read-only properties of `dev.sdlab.Hub1`.
    public enum Property: String, Sendable, CaseIterable {
        case state = "State", shared = "Shared", online = "Online", locked = "Locked", generation = "Generation"
        case foreground = "Foreground"
    }
}

/// `dev.sdlab.Broker1`: MSAL's broker in shared device mode.
public enum BrokerMethod: String, HubMember, CaseIterable {
    case getDeviceInformation = "GetDeviceInformation", getAccounts = "GetAccounts", signIn = "SignIn"
    case signOut = "SignOut", removeAccount = "RemoveAccount", acquireTokenSilent = "AcquireTokenSilent"
    public static let interface = "dev.sdlab.Broker1"
}

/// `dev.sdlab.KeyService1`: the off-device key service of `external` records.
public enum KeyServiceMethod: String, HubMember, CaseIterable {
    case getUserKey = "GetUserKey"
    public static let interface = "dev.sdlab.KeyService1"
}

/// `dev.sdlab.Notify1`: the Darwin-style notification center (state and registrations on the
/// hub object; posts are signals from `DeviceBus.notifyPath`).
public enum NotifyMethod: String, HubMember, CaseIterable {
    case setState = "SetState", getState = "GetState", register = "Register", cancel = "Cancel"
    public static let interface = "dev.sdlab.Notify1"
    /// The signal of a post.
    public static let posted = "Posted"
}

/// The app side of the contract: `dev.sdlab.App1` at `/dev/sdlab/App` under `dev.sdlab.App.NAME`
/// (Bus/dev.sdlab.App1.xml), how the runner (or anyone) drives an app.
public enum AppBus {
    public static let namePrefix = "dev.sdlab.App."
    public static let path: ObjectPath = "/dev/sdlab/App"
    public static let interface = "dev.sdlab.App1"

    public static func name(of app: String) -> String { namePrefix + app }

    public enum Method: String, Sendable, CaseIterable {
        case foreground = "Foreground", resumed = "Resumed", background = "Background", write = "Write"
        case signIn = "SignIn", signOut = "SignOut", unlock = "Unlock", settle = "Settle", snapshot = "Snapshot"
        case expireBackgroundTasks = "ExpireBackgroundTasks"
    }

    /// The app's signal `BackgroundTasks(u open)`: how many background tasks it has open, sent
    /// whenever that changes (UIKit's `beginBackgroundTask` and `endBackgroundTask`).
    public static let backgroundTasksSignal = "BackgroundTasks"

    /// The declaration of that signal, for an app's interface.
    public static let backgroundTasksDeclaration = DBusInterface.Signal(
        backgroundTasksSignal, [.init("open", "u")])

    /// The rule a runner hears every app's `BackgroundTasks` with (it tells them apart by sender).
    public static let backgroundTasksRule = MatchRule(
        path: path, interface: interface, member: backgroundTasksSignal)

    public enum Property: String, Sendable, CaseIterable {
        case name = "Name", sdk = "SDK", backgroundMode = "BackgroundMode", cleanup = "Cleanup"
    }
}
