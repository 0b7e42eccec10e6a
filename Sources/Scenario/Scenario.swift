import Foundation
import SharedDevice

/// A scenario file (Docs/scenarios.md), validated: every name it uses is declared, every value typed.
public struct Scenario: Sendable, Equatable {
    public var name: String
    /// The file it came from, as given to `load` or `parse`.
    public var file: String
    public var device: Device
    public var users: [UserEntry]
    /// Fleets already expanded: `{name: fleet, count: 3}` is `fleet1`, `fleet2`, `fleet3`.
    public var apps: [AppEntry]
    public var steps: [Step]
    /// Labels for choosing what runs (`sdlab run --tag`, `--skip-tag`), in the order written.
    public var tags: [String]

    /// The places of each app's container the scenario declares out of scope (`scan: {skip:}`).
    public var scanSkips: [String: [String]] {
        Dictionary(apps.map { ($0.name, $0.scanSkips) }, uniquingKeysWith: { $1 })
    }

    public init(
        name: String, file: String, device: Device, users: [UserEntry], apps: [AppEntry], steps: [Step],
        tags: [String] = []
    ) {
        self.name = name
        self.file = file
        self.device = device
        self.users = users
        self.apps = apps
        self.steps = steps
        self.tags = tags
    }

    /// The folder of the scenario file, absolute: relative paths in it (hooks, executables)
    /// are relative to it.
    public var folder: String { Self.folder(of: file) }

    /// The absolute folder of the scenario file `file` (relative to the current folder).
    public static func folder(of file: String) -> String {
        let absolute = file.hasPrefix("/") ? file : FileManager.default.currentDirectoryPath + "/" + file
        let folder = absolute[..<(absolute.lastIndex(of: "/") ?? absolute.startIndex)]
        return folder.isEmpty ? "/" : String(folder)
    }

    /// The directory a scenario without `users` gets: `stage` (staging), `cou1`, `cou2`.
    public static let defaultUsers = [
        UserEntry(user: DirectoryUser(name: "stage", role: .staging), password: "stage"),
        UserEntry(user: DirectoryUser(name: "cou1"), password: "cou1"),
        UserEntry(user: DirectoryUser(name: "cou2"), password: "cou2"),
    ]
}

/// The scenario's `device:` settings.
public struct Device: Sendable, Equatable {
    public var policy: HubModel.Policy
    /// Whether the console is reachable when the device starts.
    public var online: Bool
    /// How long an iOS app without background mode runs in the background before it is suspended.
    public var backgroundTime: BackgroundTime
    /// How long an Android app without background mode runs once cached, before it is frozen.
    public var androidFreezeAfter: Duration

    public init(
        policy: HubModel.Policy = HubModel.Policy(), online: Bool = true, backgroundTime: BackgroundTime = .iOS,
        androidFreezeAfter: Duration = BackgroundTime.androidFreezeAfter
    ) {
        self.policy = policy
        self.online = online
        self.backgroundTime = backgroundTime
        self.androidFreezeAfter = androidFreezeAfter
    }

    /// The background time of an app of `sdk` on this device.
    public func backgroundTime(for sdk: SDKKind) -> BackgroundTime {
        BackgroundTime.of(sdk, iOS: backgroundTime, androidFreezeAfter: androidFreezeAfter)
    }
}

/// A user of the console's directory with the password the scenario gives it.
public struct UserEntry: Sendable, Equatable {
    public var user: DirectoryUser
    public var password: String

    public init(user: DirectoryUser, password: String) {
        self.user = user
        self.password = password
    }
}

/// One app process of the scenario.
public struct AppEntry: Sendable, Equatable {
    public var name: String
    public var sdk: SDKKind
    /// Keeps running in the background (else it is suspended there).
    public var background: Bool
    /// The built-in app begins a background task as it enters the background, and holds it
    /// until its time is up or it returns to the foreground.
    public var backgroundTask: Bool
    public var cleanup: CleanupPolicy
    /// A team's own app executable, absolute (the scenario names it relative to its folder);
    /// nil runs the built-in app.
    public var executable: String?
    /// The entry that declared it (for a fleet member, the fleet's entry).
    public var location: Location
    /// `scan: {skip: [GLOB, …]}`: places in its container the leak scan does not read (a
    /// vendor's cache past the scanner's budget, a file encrypted with a key of its own), as
    /// patterns matched against the place (`*` crosses folders too). The scan lists them as
    /// out of scope; nothing else of the container is left unread.
    public var scanSkips: [String]
    /// `info_plist:`, absolute: the app's Info.plist, which MSAL checks its redirect URI against
    /// as it starts; nil: none (Docs/your-app.md).
    public var infoPlist: String?

    public init(
        name: String, sdk: SDKKind, background: Bool = false, backgroundTask: Bool = false,
        cleanup: CleanupPolicy = .wipeAll, executable: String? = nil, scanSkips: [String] = [],
        infoPlist: String? = nil, location: Location
    ) {
        self.infoPlist = infoPlist
        self.name = name
        self.sdk = sdk
        self.background = background
        self.backgroundTask = backgroundTask
        self.cleanup = cleanup
        self.executable = executable
        self.scanSkips = scanSkips
        self.location = location
    }
}

public struct Step: Sendable, Equatable {
    /// The most steps a scenario may run once every `repeat` is unrolled: a storm of a
    /// thousand session changes with expectations fits; a typo such as `times: 10000000` in
    /// a nested `repeat` is an error, not a run that never ends.
    public static let mostRunSteps = 1_000_000

    /// How many steps this one runs, every `repeat` unrolled (anything above `mostRunSteps`
    /// counts as one more than it).
    public var runCount: Int { kind.runCount }

    public static func runCount(of steps: [Step]) -> Int {
        steps.reduce(0) { min($0 + $1.runCount, mostRunSteps + 1) }
    }

    public var location: Location
    /// The error the step must fail with (`dev.sdlab.Error.NAME`); nil: it must succeed.
    public var error: DeviceError?
    /// Where in the step's change the hub dies (`hub_crash:`); nil: it does not.
    public var hubCrash: HubCrashPoint?
    public var kind: StepKind

    public init(location: Location, error: DeviceError? = nil, hubCrash: HubCrashPoint? = nil, kind: StepKind) {
        self.location = location
        self.error = error
        self.hubCrash = hubCrash
        self.kind = kind
    }
}

public enum StepKind: Sendable, Equatable {
    case enroll(user: String, password: String?)
    case checkout(user: String, password: String?, from: Origin = .hub)
    case checkin(from: Origin = .hub)
    case signin(app: String, user: String, password: String?)
    case signout(app: String)
    case removeAccount
    /// `launch`, `terminate`, …: the apps in order, `all` and fleets already expanded.
    case lifecycle(AppLifecycle.Action, apps: [String])
    case write(app: String, kind: RecordKind, count: Int)
    case network(online: Bool)
    case lock
    case unlock(app: String?, user: String, password: String?)
    /// Enterprise wipe from the console.
    case wipe
    /// A post from a process that is not the broker.
    case post(name: String)
    case hub(HubAction)
    case wait(Duration)
    /// Until nothing more can happen now; nil: the runner's default bound.
    case settle(Duration?)
    case `repeat`(times: Int, steps: [Step])
    case expect([Expectation])

    /// How many steps this runs, every `repeat` unrolled (see `Step.runCount`).
    public var runCount: Int {
        guard case .repeat(let times, let inner) = self else { return 1 }
        let (product, overflow) = Step.runCount(of: inner).multipliedReportingOverflow(by: times)
        return overflow ? Step.mostRunSteps + 1 : min(product, Step.mostRunSteps + 1)
    }

    public enum HubAction: String, Sendable, Equatable, CaseIterable {
        case crash, restart
    }

    /// Where a worker's check-in or check-out is made: in the Hub app, which then takes the
    /// front (Docs/behaviour.md §1), or from the console, which leaves the front alone.
    public enum Origin: String, Sendable, Equatable, CaseIterable {
        case hub, console
    }
}

/// The checks of one `expect` target.
public struct Expectation: Sendable, Equatable {
    /// A fleet's name is expanded into one expectation per member.
    public var target: ExpectTarget
    public var location: Location
    public var fields: [ExpectField]

    public init(target: ExpectTarget, location: Location, fields: [ExpectField]) {
        self.target = target
        self.location = location
        self.fields = fields
    }
}

/// Whom an `expect` entry checks: the hub, one app, or a group of apps. The one place the
/// reserved names `hub`, `all`, `msal` and `ws1` are spelled.
public enum ExpectTarget: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    case hub
    case app(String)
    case group(AppGroup)

    /// Every app, or every app of one SDK family; the runner knows the apps' kinds.
    public enum AppGroup: String, Sendable, CaseIterable {
        case all, msal, ws1

        public func covers(_ sdk: SDKKind) -> Bool {
            switch self {
            case .all: true
            case .msal: sdk != .ws1
            case .ws1: sdk == .ws1
            }
        }
    }

    /// The names no app may take.
    public static let reservedNames: Set<String> = Set(["hub"] + AppGroup.allCases.map(\.rawValue))

    /// A name as a scenario writes it: a reserved one, else an app's.
    public init(_ name: String) {
        if name == "hub" {
            self = .hub
        } else if let group = AppGroup(rawValue: name) {
            self = .group(group)
        } else {
            self = .app(name)
        }
    }

    public init(stringLiteral name: String) { self.init(name) }

    public var description: String {
        switch self {
        case .hub: "hub"
        case .app(let name): name
        case .group(let group): group.rawValue
        }
    }
}

/// One check of an expectation, at the key that states it.
public struct ExpectField: Sendable, Equatable {
    public var location: Location
    public var check: Check

    public init(location: Location, check: Check) {
        self.location = location
        self.check = check
    }

    public enum Check: Sendable, Equatable {
        // Apps.
        case state(AppState)
        /// Who the app (or, under `hub`, the device) acts as; nil: `none`.
        case user(String?)
        /// MSAL's last `previous`; nil: `none`.
        case previous(String?)
        /// The exact callbacks since the previous `expect`, as written.
        case callbacks([String])
        /// nil: `none`.
        case error(String?)
        case leaks(Int)
        case exposed(Int)
        case retained(preferences: Int?, common: Int?)
        case records(Int)
        case prefsApplied
        case mechanism(Mechanism)
        /// The app's background tasks' expiration handlers ran (or not) since it last entered
        /// the background; when they did, between `after` and `before` after it (either: unbounded).
        case expired(ran: Bool, after: Duration? = nil, before: Duration? = nil)
        case within(Duration)
        // The hub.
        case hubState(Session.State)
        /// MSAL's signed-in account (the broker's); nil: `none`.
        case account(String?)
        case generation(UInt64)
        case online(Bool)
        case locked(Bool)
        /// An app name or `hub`.
        case foreground(String)
    }

    public enum AppState: String, Sendable, Equatable, CaseIterable {
        case foreground, background, suspended
        case notRunning = "not-running"
        case blocked
    }
}
