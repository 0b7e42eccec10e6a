import DeviceContract
import SharedDevice

/// What an app process is: its name, SDK, lifecycle option, cleanup and where it keeps things.
public struct AppConfiguration: Sendable {
    public var name: String
    public var sdk: SDKKind
    /// Keeps running in the background (else the runner suspends it there).
    public var backgroundMode: Bool
    /// Begins a background task on entering the background (`--background-task`).
    public var backgroundTask: Bool
    public var policy: CleanupPolicy
    /// The app's container folder.
    public var container: String
    /// The app's trace file.
    public var trace: String?
    public var hookTimeout: Duration
    /// The folder a cleanup hook runs in (a scenario's own folder); nil: the app's.
    public var hookDirectory: String?
    /// How long the SDK waits for the hub before treating it as unreachable.
    public var hubTimeout: Duration
    /// Where the app finds the hub (`--hub-name-file`).
    public var hub: HubAddress
    /// See `PostTraceBudget`; 0: every post is traced.
    public var tracedPostsPerSecond: Int
    /// The places of the container the scenario leaves out of the scan.
    public var scanSkips: [String]

    public init(
        name: String, sdk: SDKKind, backgroundMode: Bool = false, backgroundTask: Bool = false,
        policy: CleanupPolicy = .wipeAll, container: String, trace: String? = nil, hookTimeout: Duration = .seconds(10),
        hookDirectory: String? = nil, hubTimeout: Duration = .seconds(5), hub: HubAddress = .wellKnown,
        tracedPostsPerSecond: Int = AppOptions.defaultTracedPostsPerSecond, scanSkips: [String] = []
    ) {
        self.scanSkips = scanSkips
        self.name = name
        self.sdk = sdk
        self.backgroundMode = backgroundMode
        self.backgroundTask = backgroundTask
        self.policy = policy
        self.container = container
        self.trace = trace
        self.hookTimeout = hookTimeout
        self.hookDirectory = hookDirectory
        self.hubTimeout = hubTimeout
        self.hub = hub
        self.tracedPostsPerSecond = tracedPostsPerSecond
    }

    public var busName: String { AppBus.name(of: name) }

    /// The configuration the options declare.
    public init(_ options: AppOptions) {
        self.init(
            name: options.name, sdk: options.sdk, backgroundMode: options.backgroundMode,
            backgroundTask: options.backgroundTask, policy: options.policy,
            container: options.container, trace: options.trace, hookTimeout: options.hookTimeout,
            hookDirectory: options.hookDirectory, hub: HubAddress(nameFile: options.hubNameFile),
            tracedPostsPerSecond: options.tracedPostsPerSecond ?? AppOptions.defaultTracedPostsPerSecond,
            scanSkips: options.scanSkips)
    }
}
