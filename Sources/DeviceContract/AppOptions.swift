import ArgumentParser
import DBusKit
import SharedDevice

extension SDKKind: ExpressibleByArgument {}

/// Durations on the command line as in scenarios: `250ms`, `5s`.
extension Duration: @retroactive ExpressibleByArgument {
    public init?(argument: String) {
        guard let parsed = Durations.parse(argument) else { return nil }
        self = parsed
    }
}

/// The options of an app process, declared once: `sdlab app` and any app a team builds on
/// SharedDeviceSDK parse them, and the runner writes them (`arguments`), so both sides
/// agree by construction.
public struct AppOptions: ParsableArguments, Sendable {
    @Option(help: ArgumentHelp("The device bus address (default: $DBUS_SESSION_BUS_ADDRESS).", valueName: "address"))
    public var bus: String?

    @Option(help: "The app's name: letters, digits and _, not starting with a digit.")
    public var name: String

    @Option(help: "The embedded SDK: \(SDKKind.allCases.map(\.rawValue).joined(separator: ", ")).")
    public var sdk: SDKKind

    @Flag(help: "Keep running in the background (else the runner suspends the app there).")
    public var backgroundMode = false

    @Flag(
        help:
            "Begin a background task on entering the background and hold it until its time is up or the app returns to the foreground (the built-in app; an app of a team's own begins its own)."
    )
    public var backgroundTask = false

    @Option(
        help:
            "What to do with the previous user's data: \(CleanupPolicy.names.joined(separator: ", ")), or own (an app with cleanup code of its own)."
    )
    public var cleanup = "wipe-all"

    @Option(
        help:
            "Run this shell command as the cleanup instead of a policy (SDLAB_APP, SDLAB_CONTAINER, SDLAB_PREVIOUS_USER, SDLAB_CURRENT_USER and SDLAB_REASON are set)."
    )
    public var hook: String?

    @Option(help: ArgumentHelp("The folder the hook runs in (default: the current one).", valueName: "folder"))
    public var hookDirectory: String?

    @Option(
        help: ArgumentHelp(
            "What the hook or the app's own cleanup keeps of another user: \(RecordKind.keepable.map(\.rawValue).joined(separator: ", ")); repeatable.",
            valueName: "kind"))
    public var keeps: [String] = []

    @Option(help: "How long a cleanup hook may run (e.g. 10s, 500ms).")
    public var hookTimeout: Duration = .seconds(10)

    @Option(help: "The app's container folder (created 0700).")
    public var container: String

    @Option(help: "The file the app appends its trace events to.")
    public var trace: String?

    @Option(
        help: ArgumentHelp(
            "The file the hub records its unique bus name in (`hub --name-file`): the app calls that name only, never a process that took dev.sdlab.Hub (default: dev.sdlab.Hub).",
            valueName: "file"))
    public var hubNameFile: String?

    @Option(
        help:
            "At most this many post-received trace lines a second, after a burst of \(Self.tracedPostsBurst); past it posts are counted in posts-untraced lines (default \(Self.defaultTracedPostsPerSecond); 0: trace every post)."
    )
    public var tracedPostsPerSecond: Int?

    /// A flood of posts from any bus client would make every app's trace, and the runner that
    /// reads them, grow with it: past the burst, lines are few. A storm of a thousand session
    /// changes fits the burst; legitimate posts never come faster for long.
    public static let defaultTracedPostsPerSecond = 100
    public static let tracedPostsBurst = 2000

    public init() {}

    public func validate() throws {
        guard (tracedPostsPerSecond ?? 0) >= 0 else { throw ValidationError("--traced-posts-per-second: 0 or more") }
        guard AppName.isValid(name) else {
            throw ValidationError("--name \(name): letters, digits and _ only, not starting with a digit")
        }
        guard hook != nil || CleanupPolicy(name: cleanup) != nil else {
            throw ValidationError("--cleanup \(cleanup): one of \(CleanupPolicy.names.joined(separator: ", ")) or own")
        }
        let keepable = RecordKind.keepable.map(\.rawValue)
        if let kind = keeps.first(where: { !keepable.contains($0) }) {
            throw ValidationError(
                "--keeps \(kind): one of \(keepable.joined(separator: ", ")) (user data is never kept)")
        }
        guard keeps.isEmpty || hook != nil || cleanup == "own" else {
            throw ValidationError(
                "--keeps declares what a hook or the app's own cleanup keeps: add --hook or --cleanup own")
        }
    }

    /// The cleanup these options declare.
    public var policy: CleanupPolicy {
        let kept = Set(keeps.compactMap(RecordKind.init(rawValue:)))
        if let hook { return .hook(command: hook, keeps: kept) }
        switch CleanupPolicy(name: cleanup) ?? .wipeAll {
        case .own: return .own(keeps: kept)
        case let named: return named
        }
    }

    /// The command line that parses to these options.
    public var arguments: [String] {
        Self.commandLine(
            name: name, sdk: sdk, backgroundMode: backgroundMode, backgroundTask: backgroundTask, cleanup: policy,
            hookDirectory: hookDirectory, hookTimeout: hookTimeout, container: container, trace: trace, bus: bus,
            hubNameFile: hubNameFile, tracedPostsPerSecond: tracedPostsPerSecond)
    }

    /// The command line of an app with these options, as the runner starts it: written next to
    /// the declarations above, and read back by them.
    public static func commandLine(
        name: String, sdk: SDKKind, backgroundMode: Bool, backgroundTask: Bool = false, cleanup: CleanupPolicy,
        hookDirectory: String? = nil, hookTimeout: Duration = .seconds(10), container: String,
        trace: String?, bus: String?, hubNameFile: String? = nil, tracedPostsPerSecond: Int? = nil
    ) -> [String] {
        var arguments = [
            "--name", name, "--sdk", sdk.rawValue, "--container", container,
            "--hook-timeout", "\(hookTimeout.nanoseconds)ns",
        ]
        if let bus { arguments += ["--bus", bus] }
        if let trace { arguments += ["--trace", trace] }
        if let hubNameFile { arguments += ["--hub-name-file", hubNameFile] }
        if let tracedPostsPerSecond { arguments += ["--traced-posts-per-second", "\(tracedPostsPerSecond)"] }
        if backgroundMode { arguments.append("--background-mode") }
        if backgroundTask { arguments.append("--background-task") }
        // A built-in policy keeps what its name says; a hook or the app's own code declares it.
        let declared = RecordKind.keepable.filter(cleanup.keeps.contains).flatMap { ["--keeps", $0.rawValue] }
        switch cleanup {
        case .hook(let command, _):
            arguments += ["--hook", command] + (hookDirectory.map { ["--hook-directory", $0] } ?? []) + declared
        case .own: arguments += ["--cleanup", cleanup.name] + declared
        default: arguments += ["--cleanup", cleanup.name]
        }
        return arguments
    }
}
