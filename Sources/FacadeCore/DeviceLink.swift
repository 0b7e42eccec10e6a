import DBusKit
import DeviceContract
import SharedDevice
import Synchronization

/// The device a team's app runs in, as the facades (`MSAL`, `AWSDK`, `notify`, `Security`, the
/// Darwin center) reach it: the bus, the hub, the app's keychain, and the host that listens to
/// what they do. The host installs it before any of the app's code runs; without it (a facade
/// used outside a device) each facade answers as the real SDK does when its broker, server or
/// daemon is missing.
public final class DeviceLink: Sendable {
    public let connection: Connection
    public let hub: HubAddress
    /// How long an SDK waits for the hub before it counts as unreachable.
    public let hubTimeout: Duration
    /// The app's name: MSAL's client id, and `dev.sdlab.App.NAME` on the bus.
    public let appName: String
    /// The app's keychain: a folder beside its sandbox, which outlives the app's data as on a phone.
    public let keychainFolder: String
    public let listener: any DeviceListener
    /// What the app's Info.plist says (nil: it has none), which MSAL reads as it starts.
    public let appInfo: AppInfo?
    /// Whether Android holds this app's broadcasts (cached), which its receivers go through.
    public let cached = CachedProcess()

    public init(
        connection: Connection, hub: HubAddress, hubTimeout: Duration, appName: String, keychainFolder: String,
        appInfo: AppInfo? = nil, listener: any DeviceListener
    ) {
        self.appInfo = appInfo
        self.connection = connection
        self.hub = hub
        self.hubTimeout = hubTimeout
        self.appName = appName
        self.keychainFolder = keychainFolder
        self.listener = listener
    }

    private static let installed = Mutex<DeviceLink?>(nil)

    /// The link of this process, once the host installed it.
    public static var current: DeviceLink? { installed.withLock { $0 } }

    /// Done once by the host, before the app's code runs.
    public static func install(_ link: DeviceLink) { installed.withLock { $0 = link } }
}

/// What the facades tell the host as they work, so that the app's trace says what its SDK did
/// and when, exactly as `sdlab-app`'s does.
public protocol DeviceListener: Sendable {
    /// A post reached this process (called on the bus connection's thread, as it arrives, or
    /// as Android delivers one it held while the app was cached).
    func heardPost(_ name: String, sender: String, serial: UInt32)
    /// A broadcast reached this process while it is cached: Android holds it (`post-held`).
    func heldPost(_ name: String, sender: String, serial: UInt32)
    /// An SDK began asking the device whom the app serves.
    func checkStarted()
    /// The SDK answered; called before the app's completion or delegate runs.
    func checkFinished(_ result: CheckResult)
    /// The SDK could not answer (`error` is the device's or the bus's error name); nothing changed.
    func checkFailed(_ error: String)
    /// App code a facade called (a completion, a delegate method, a notification callback)
    /// returned; `afterCheck`: the code a check's answer led to (its completion, or the
    /// delegate calls of a Workspace ONE detection), once per `checkStarted`. `mayStillRun`:
    /// that code is a caller's that awaited the answer off any actor, and runs beside the host,
    /// so a scan now cannot tell that its cleanup failed (`AwaitedReturn`).
    func appCodeReturned(afterCheck: Bool, mayStillRun: Bool)
    /// An SDK refused to start (`error`: its name, as the app's `error` expectation reads it;
    /// `message`: the SDK's words).
    func sdkRefused(_ error: String, message: String)
    /// What the person at the device types into MSAL's sign-in page; nil when nobody is there
    /// (the app started an interactive sign-in that no scenario step asked for).
    func takeCredentials() -> (user: String, password: String)?
}

extension DeviceListener {
    /// A listener that keeps no trace has nothing to say of a held broadcast or a refused start.
    public func heldPost(_ name: String, sender: String, serial: UInt32) {}
    public func sdkRefused(_ error: String, message: String) {}

    /// App code that no check led to returned (a notification callback, say).
    public func appCodeReturned() { appCodeReturned(afterCheck: false) }

    /// App code returned, and none of it runs on.
    public func appCodeReturned(afterCheck: Bool) { appCodeReturned(afterCheck: afterCheck, mayStillRun: false) }
}
