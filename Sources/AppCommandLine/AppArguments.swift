import ArgumentParser
import DeviceContract
import SharedDevice

extension SDKKind: ExpressibleByArgument {}

/// Durations on the command line as in scenarios: `250ms`, `5s`.
extension Duration: @retroactive ExpressibleByArgument {
    public init?(argument: String) {
        guard let parsed = Durations.parse(argument) else { return nil }
        self = parsed
    }
}

extension NameSpecification {
    /// An app option under the name `AppOptions.Option` gives it, which the runner writes.
    static func app(_ option: AppOptions.Option) -> NameSpecification { .customLong(option.rawValue) }
}

/// An app process's command line, parsed into its `options`: what `sdlab app`, `sdlab-app` and
/// a team's app (`DeviceHost`) read, with the help `--help` shows.
public struct AppArguments: ParsableArguments, Sendable {
    @Option(
        name: .app(.bus),
        help: ArgumentHelp("The device bus address (default: $DBUS_SESSION_BUS_ADDRESS).", valueName: "address"))
    var bus: String?

    @Option(name: .app(.name), help: "The app's name: letters, digits and _, not starting with a digit.")
    var name: String

    @Option(name: .app(.sdk), help: "The embedded SDK: \(SDKKind.allCases.map(\.rawValue).joined(separator: ", ")).")
    var sdk: SDKKind

    @Flag(name: .app(.backgroundMode), help: "Keep running in the background (else the runner suspends the app there).")
    var backgroundMode = false

    @Flag(
        name: .app(.backgroundTask),
        help:
            "Begin a background task on entering the background and hold it until its time is up or the app returns to the foreground (the built-in app; an app of a team's own begins its own)."
    )
    var backgroundTask = false

    @Option(
        name: .app(.backgroundGrace),
        help:
            "How long the app runs once sent to the background with no background task open, before the device suspends it (e.g. 5s, 0s); the app counts it down."
    )
    var backgroundGrace = BackgroundTime.iOS.grace

    @Option(
        name: .app(.backgroundTaskTime),
        help:
            "How long it runs, counted from the same moment, while it has a background task open (e.g. 30s)."
    )
    var backgroundTaskTime = BackgroundTime.iOS.task

    @Option(
        name: .app(.cleanup),
        help:
            "What to do with the previous user's data: \(CleanupPolicy.names.joined(separator: ", ")), or own (an app with cleanup code of its own)."
    )
    var cleanup = CleanupPolicy.wipeAll.name

    @Option(
        name: .app(.hook),
        help:
            "Run this shell command as the cleanup instead of a policy (SDLAB_APP, SDLAB_CONTAINER, SDLAB_PREVIOUS_USER, SDLAB_CURRENT_USER and SDLAB_REASON are set)."
    )
    var hook: String?

    @Option(
        name: .app(.hookDirectory),
        help: ArgumentHelp("The folder the hook runs in (default: the current one).", valueName: "folder"))
    var hookDirectory: String?

    @Option(
        name: .app(.keeps),
        help: ArgumentHelp(
            "What the hook or the app's own cleanup keeps of another user: \(RecordKind.keepable.map(\.rawValue).joined(separator: ", ")); repeatable.",
            valueName: "kind"))
    var keeps: [String] = []

    @Option(name: .app(.hookTimeout), help: "How long a cleanup hook may run (e.g. 10s, 500ms).")
    var hookTimeout = AppOptions.defaultHookTimeout

    @Option(name: .app(.container), help: "The app's container folder (created 0700).")
    var container: String

    @Option(name: .app(.trace), help: "The file the app appends its trace events to.")
    var trace: String?

    @Option(
        name: .app(.hubNameFile),
        help: ArgumentHelp(
            "The file the hub records its unique bus name in (`hub --name-file`): the app calls that name only, never a process that took dev.sdlab.Hub (default: dev.sdlab.Hub).",
            valueName: "file"))
    var hubNameFile: String?

    @Option(
        name: .app(.tracedPostsPerSecond),
        help:
            "At most this many post-received trace lines a second, after a burst of \(AppOptions.tracedPostsBurst); past it posts are counted in posts-untraced lines (default \(AppOptions.defaultTracedPostsPerSecond); 0: trace every post)."
    )
    var tracedPostsPerSecond: Int?

    @Option(
        name: .app(.readyFD),
        help: ArgumentHelp(
            "The descriptor to say ready on, apart from what the app prints (default: stdout). The runner passes a pipe as 3; stdout and stderr then go to the app's log.",
            valueName: "fd"))
    var readyFD: Int32?

    @Option(
        name: .app(.scanSkip),
        help: ArgumentHelp(
            "A place of the container the scan leaves out (a glob, as the scenario's scan: {skip:}); repeatable.",
            valueName: "glob"))
    var scanSkip: [String] = []

    @Option(
        name: .app(.infoPlist),
        help: ArgumentHelp(
            "The app's Info.plist, which MSAL reads as it starts (its bundle identifier, URL schemes and queried schemes; default: none, and MSAL checks nothing of its redirect URI).",
            valueName: "file"))
    var infoPlist: String?

    public init() {}

    public func validate() throws {
        if let problem = values.problem { throw ValidationError(problem) }
    }

    /// The options parsed.
    public var options: AppOptions { values.options }

    private var values: AppOptionValues {
        AppOptionValues(
            bus: bus, name: name, sdk: sdk, backgroundMode: backgroundMode, backgroundTask: backgroundTask,
            backgroundGrace: backgroundGrace, backgroundTaskTime: backgroundTaskTime, cleanup: cleanup, hook: hook,
            hookDirectory: hookDirectory, keeps: keeps, hookTimeout: hookTimeout, container: container, trace: trace,
            hubNameFile: hubNameFile, tracedPostsPerSecond: tracedPostsPerSecond, readyFD: readyFD,
            scanSkip: scanSkip, infoPlist: infoPlist)
    }
}

/// The command line of the running app program (`sdlab-app`, a team's app): its options, or
/// its help and errors, named after the program.
public struct AppProgram: ParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: String(CommandLine.arguments.first?.split(separator: "/").last ?? "app"),
            abstract: "An app in a SharedDeviceLab device: `sdlab run` starts it with these options.")
    }

    @OptionGroup var app: AppArguments

    public init() {}

    /// The options `arguments` give; the program exits with its help, or the error, otherwise.
    /// The runner's own form is read at once (`AppOptionValues.init(runnersForm:)`); anything
    /// else, and whatever that form cannot say, goes through ArgumentParser.
    public static func options(from arguments: [String]) -> AppOptions {
        if let values = AppOptionValues(runnersForm: arguments), values.problem == nil { return values.options }
        do {
            return try parse(arguments).app.options
        } catch {
            exit(withError: error)
        }
    }
}
