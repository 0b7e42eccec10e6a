import DBusKit
import DeviceContract
import DeviceProcesses
import Foundation
import SharedDevice

/// How the runner starts an app (a scenario's `apps` entry).
public struct AppSpec: Sendable, Equatable {
    public var name: String
    public var sdk: SDKKind
    public var backgroundMode: Bool
    /// The built-in app begins a background task as it enters the background.
    public var backgroundTask: Bool
    /// The device's background time, which the runner suspends the app by; the app is told it.
    public var backgroundTime: BackgroundTime
    public var cleanup: CleanupPolicy
    /// A team's app on DeviceHost, run instead of the built-in app.
    public var executable: String?
    /// The folder a cleanup hook runs in: the scenario file's, so its relative paths are the file's.
    public var hookDirectory: String?
    /// The app's `--traced-posts-per-second` (nil: its default); the bench traces every post.
    public var tracedPostsPerSecond: Int?
    /// The places of its container the scenario declares out of scope of the scan.
    public var scanSkips: [String]
    /// The app's Info.plist (nil: none).
    public var infoPlist: String?

    public init(
        name: String, sdk: SDKKind, backgroundMode: Bool = false, backgroundTask: Bool = false,
        backgroundTime: BackgroundTime = .iOS, cleanup: CleanupPolicy = .wipeAll, executable: String? = nil,
        hookDirectory: String? = nil, scanSkips: [String] = [], infoPlist: String? = nil,
        tracedPostsPerSecond: Int? = nil
    ) {
        self.infoPlist = infoPlist
        self.scanSkips = scanSkips
        self.tracedPostsPerSecond = tracedPostsPerSecond
        self.name = name
        self.sdk = sdk
        self.backgroundMode = backgroundMode
        self.backgroundTask = backgroundTask
        self.backgroundTime = backgroundTime
        self.cleanup = cleanup
        self.executable = executable
        self.hookDirectory = hookDirectory
    }

    /// The app's command line (`AppOptions`, which the app reads back) in a run folder; it says
    /// ready on the launcher's pipe.
    func arguments(bus: String, directory: String) -> [String] {
        AppOptions(
            name: name, sdk: sdk, backgroundMode: backgroundMode, backgroundTask: backgroundTask,
            backgroundTime: backgroundTime, policy: cleanup,
            hookDirectory: hookDirectory, container: RunFolder.container(of: name, in: directory),
            trace: RunFolder.trace(of: name, in: directory), bus: bus,
            hubNameFile: RunFolder.hubName(in: directory), tracedPostsPerSecond: tracedPostsPerSecond,
            readyDescriptor: LaunchedApp.readyDescriptor, scanSkips: scanSkips, infoPlist: infoPlist
        ).arguments
    }
}
