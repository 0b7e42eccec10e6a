import DeviceContract
import SharedDevice

/// An app's command line as values, before they are options: what ArgumentParser parsed
/// (`AppArguments`) or what the runner's own form says (`init(runnersForm:)`), checked by the
/// same rules (`problem`) and made options the same way (`options`).
struct AppOptionValues {
    var bus: String?
    var name: String
    var sdk: SDKKind
    var backgroundMode = false
    var backgroundTask = false
    var backgroundGrace = BackgroundTime.iOS.grace
    var backgroundTaskTime = BackgroundTime.iOS.task
    var cleanup = CleanupPolicy.wipeAll.name
    var hook: String?
    var hookDirectory: String?
    var keeps: [String] = []
    var hookTimeout = AppOptions.defaultHookTimeout
    var container: String
    var trace: String?
    var hubNameFile: String?
    var tracedPostsPerSecond: Int?
    var readyFD: Int32?
    var scanSkip: [String] = []
    var infoPlist: String?

    /// What is wrong with the values, in the words `--help`'s options use; nil when nothing is.
    var problem: String? {
        typealias Option = AppOptions.Option
        if (readyFD ?? 3) < 3 { return "\(Option.readyFD.flag): 3 or more (0, 1 and 2 are stdin, stdout and stderr)" }
        if (tracedPostsPerSecond ?? 0) < 0 { return "\(Option.tracedPostsPerSecond.flag): 0 or more" }
        if !AppName.isValid(name) {
            return "\(Option.name.flag) \(name): letters, digits and _ only, not starting with a digit"
        }
        if hook == nil && CleanupPolicy(name: cleanup) == nil {
            return "\(Option.cleanup.flag) \(cleanup): one of \(CleanupPolicy.names.joined(separator: ", ")) or own"
        }
        let keepable = RecordKind.keepable.map(\.rawValue)
        if let kind = keeps.first(where: { !keepable.contains($0) }) {
            return "\(Option.keeps.flag) \(kind): one of \(keepable.joined(separator: ", ")) (user data is never kept)"
        }
        if !keeps.isEmpty && hook == nil && cleanup != "own" {
            return
                "\(Option.keeps.flag) declares what a hook or the app's own cleanup keeps: add \(Option.hook.flag) or \(Option.cleanup.flag) own"
        }
        return nil
    }

    var options: AppOptions {
        AppOptions(
            name: name, sdk: sdk, backgroundMode: backgroundMode, backgroundTask: backgroundTask,
            backgroundTime: BackgroundTime(grace: backgroundGrace, task: backgroundTaskTime), policy: policy,
            hookDirectory: hookDirectory, hookTimeout: hookTimeout, container: container, trace: trace, bus: bus,
            hubNameFile: hubNameFile, tracedPostsPerSecond: tracedPostsPerSecond, readyDescriptor: readyFD,
            scanSkips: scanSkip, infoPlist: infoPlist)
    }

    /// The cleanup the values declare.
    private var policy: CleanupPolicy {
        let kept = Set(keeps.compactMap(RecordKind.init(rawValue:)))
        if let hook { return .hook(command: hook, keeps: kept) }
        switch CleanupPolicy(name: cleanup) ?? .wipeAll {
        case .own: return .own(keeps: kept)
        case let named: return named
        }
    }
}

extension AppOptionValues {
    /// The values of a command line in the runner's own form (`AppOptions.arguments`): each
    /// option as `--option value` or a bare flag, no value starting with `-`. On a fleet's
    /// launch, ArgumentParser's reflection and the runtime's conformance lookups behind it were
    /// about a quarter of each app's start. Nil for any other line (`--help`, `--option=value`,
    /// an unknown option, a value that does not read), which ArgumentParser then reads, with its
    /// help and its errors.
    init?(runnersForm arguments: [String]) {
        var given: [AppOptions.Option: [String]] = [:]
        var flags: Set<AppOptions.Option> = []
        var rest = arguments[...]
        while let word = rest.popFirst() {
            guard word.hasPrefix("--"), let option = AppOptions.Option(rawValue: String(word.dropFirst(2))) else {
                return nil
            }
            if option == .backgroundMode || option == .backgroundTask {
                flags.insert(option)
                continue
            }
            guard let value = rest.popFirst(), !value.hasPrefix("-") else { return nil }
            given[option, default: []].append(value)
        }
        func one(_ option: AppOptions.Option) -> String?? {
            guard let values = given[option] else { return .some(nil) }
            return values.count == 1 ? values[0] : nil
        }
        func duration(_ option: AppOptions.Option, _ otherwise: Duration) -> Duration? {
            guard let written = one(option) else { return nil }
            return written.map(Durations.parse) ?? otherwise
        }
        guard case .some(.some(let name)) = one(.name), case .some(.some(let sdkName)) = one(.sdk),
            let sdk = SDKKind(rawValue: sdkName), case .some(.some(let container)) = one(.container),
            case .some(let bus) = one(.bus), case .some(let cleanup) = one(.cleanup), case .some(let hook) = one(.hook),
            case .some(let hookDirectory) = one(.hookDirectory), case .some(let trace) = one(.trace),
            case .some(let hubNameFile) = one(.hubNameFile), case .some(let perSecond) = one(.tracedPostsPerSecond),
            case .some(let readyFD) = one(.readyFD), case .some(let infoPlist) = one(.infoPlist),
            let grace = duration(.backgroundGrace, BackgroundTime.iOS.grace),
            let taskTime = duration(.backgroundTaskTime, BackgroundTime.iOS.task),
            let hookTimeout = duration(.hookTimeout, AppOptions.defaultHookTimeout)
        else { return nil }
        self.init(name: name, sdk: sdk, container: container)
        (self.bus, self.hook, self.hookDirectory, self.trace) = (bus, hook, hookDirectory, trace)
        (self.hubNameFile, self.infoPlist) = (hubNameFile, infoPlist)
        (backgroundMode, backgroundTask) = (flags.contains(.backgroundMode), flags.contains(.backgroundTask))
        (backgroundGrace, backgroundTaskTime, self.hookTimeout) = (grace, taskTime, hookTimeout)
        if let cleanup { self.cleanup = cleanup }
        (keeps, scanSkip) = (given[.keeps] ?? [], given[.scanSkip] ?? [])
        if let perSecond {
            guard let number = Int(perSecond) else { return nil }
            tracedPostsPerSecond = number
        }
        if let readyFD {
            guard let number = Int32(readyFD) else { return nil }
            self.readyFD = number
        }
    }
}
