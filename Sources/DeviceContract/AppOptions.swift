import DBusKit
import DeviceProcesses
import Glibc
import SharedDevice

/// The options of an app process. The runner writes them (`arguments`); `sdlab app`,
/// `sdlab-app` and a team's app read them back (`AppArguments` and `AppOptionValues`, in
/// AppCommandLine), through the same names (`Option`), so both sides agree by construction.
public struct AppOptions: Sendable, Equatable {
    /// The device bus address (nil: `$DBUS_SESSION_BUS_ADDRESS`).
    public var bus: String?
    public var name: String
    public var sdk: SDKKind
    /// Keeps running in the background (else the runner suspends the app there).
    public var backgroundMode: Bool
    /// The built-in app begins a background task as it enters the background.
    public var backgroundTask: Bool
    /// The device's grace and background task time: the runner suspends the app by them; the
    /// app counts them down (UIKit's `backgroundTimeRemaining`).
    public var backgroundTime: BackgroundTime
    public var policy: CleanupPolicy
    /// The folder a cleanup hook runs in (nil: the app's current one).
    public var hookDirectory: String?
    /// How long a cleanup hook may run.
    public var hookTimeout: Duration
    /// The app's container folder.
    public var container: String
    /// The file the app appends its trace events to.
    public var trace: String?
    /// The file the hub records its unique bus name in (nil: call `dev.sdlab.Hub`).
    public var hubNameFile: String?
    /// At most this many post-received trace lines a second (nil: `defaultTracedPostsPerSecond`).
    public var tracedPostsPerSecond: Int?
    /// The descriptor the app says `ready` on, apart from what it prints (nil: stdout). The
    /// runner passes a pipe there: stdout and stderr go to the app's log.
    public var readyDescriptor: Int32?
    /// The places of the container out of scope of the scan (globs, `scan: {skip:}`).
    public var scanSkips: [String]
    /// The app's Info.plist, which its SDKs read as they start (nil: none; MSAL then checks
    /// nothing of its redirect URI).
    public var infoPlist: String?

    /// A flood of posts from any bus client would make every app's trace, and the runner that
    /// reads them, grow with it: past the burst, lines are few. A storm of a thousand session
    /// changes fits the burst; legitimate posts never come faster for long.
    public static let defaultTracedPostsPerSecond = 100
    public static let tracedPostsBurst = 2000
    public static let defaultHookTimeout = Duration.seconds(10)

    public init(
        name: String, sdk: SDKKind, backgroundMode: Bool = false, backgroundTask: Bool = false,
        backgroundTime: BackgroundTime = .iOS, policy: CleanupPolicy = .wipeAll, hookDirectory: String? = nil,
        hookTimeout: Duration = defaultHookTimeout,
        container: String, trace: String? = nil, bus: String? = nil, hubNameFile: String? = nil,
        tracedPostsPerSecond: Int? = nil, readyDescriptor: Int32? = nil, scanSkips: [String] = [],
        infoPlist: String? = nil
    ) {
        self.scanSkips = scanSkips
        self.infoPlist = infoPlist
        self.bus = bus
        self.name = name
        self.sdk = sdk
        self.backgroundMode = backgroundMode
        self.backgroundTask = backgroundTask
        self.backgroundTime = backgroundTime
        self.policy = policy
        self.hookDirectory = hookDirectory
        self.hookTimeout = hookTimeout
        self.container = container
        self.trace = trace
        self.hubNameFile = hubNameFile
        self.tracedPostsPerSecond = tracedPostsPerSecond
        self.readyDescriptor = readyDescriptor
    }

    /// Each option's long name, spelled here only: `arguments` writes it, the parser reads it.
    public enum Option: String, CaseIterable, Sendable {
        case bus, name, sdk, container, trace, keeps, hook, cleanup
        case backgroundMode = "background-mode"
        case backgroundTask = "background-task"
        case backgroundGrace = "background-grace"
        case backgroundTaskTime = "background-task-time"
        case hookDirectory = "hook-directory"
        case hookTimeout = "hook-timeout"
        case hubNameFile = "hub-name-file"
        case tracedPostsPerSecond = "traced-posts-per-second"
        case readyFD = "ready-fd"
        case scanSkip = "scan-skip"
        case infoPlist = "info-plist"

        /// The option as written: `--name`.
        public var flag: String { "--" + rawValue }
    }

    /// The command line that parses to these options, as the runner starts the app.
    public var arguments: [String] {
        var arguments = [
            Option.name.flag, name, Option.sdk.flag, sdk.rawValue, Option.container.flag, container,
            Option.hookTimeout.flag, "\(hookTimeout.nanoseconds)ns",
            Option.backgroundGrace.flag, "\(backgroundTime.grace.nanoseconds)ns",
            Option.backgroundTaskTime.flag, "\(backgroundTime.task.nanoseconds)ns",
        ]
        if let bus { arguments += [Option.bus.flag, bus] }
        if let trace { arguments += [Option.trace.flag, trace] }
        if let hubNameFile { arguments += [Option.hubNameFile.flag, hubNameFile] }
        if let tracedPostsPerSecond { arguments += [Option.tracedPostsPerSecond.flag, "\(tracedPostsPerSecond)"] }
        if let readyDescriptor { arguments += [Option.readyFD.flag, "\(readyDescriptor)"] }
        arguments += scanSkips.flatMap { [Option.scanSkip.flag, $0] }
        if let infoPlist { arguments += [Option.infoPlist.flag, infoPlist] }
        if backgroundMode { arguments.append(Option.backgroundMode.flag) }
        if backgroundTask { arguments.append(Option.backgroundTask.flag) }
        // A built-in policy keeps what its name says; a hook or the app's own code declares it.
        let declared = RecordKind.keepable.filter(policy.keeps.contains).flatMap { [Option.keeps.flag, $0.rawValue] }
        switch policy {
        case .hook(let command, _):
            arguments +=
                [Option.hook.flag, command] + (hookDirectory.map { [Option.hookDirectory.flag, $0] } ?? []) + declared
        case .own: arguments += [Option.cleanup.flag, policy.name] + declared
        default: arguments += [Option.cleanup.flag, policy.name]
        }
        return arguments
    }
}

extension AppOptions {
    /// Tells the runner the app is ready: on its ready descriptor (`readyDescriptor`), which is
    /// then closed so that nothing the app starts holds it, or on stdout when nil. A runner that
    /// stopped reading fails the write, not the app.
    public static func sayReady(on descriptor: Int32?) {
        _ = writeAll("ready\n".utf8, to: descriptor ?? STDOUT_FILENO)
        if let descriptor { close(descriptor) }
    }
}
