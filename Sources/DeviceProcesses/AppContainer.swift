import Foundation

/// Where an iOS app keeps data, inside its container: its home (`Documents`, `Library/Caches`,
/// `Library/Application Support`, `Library/Preferences` for `UserDefaults.standard`, `tmp` for
/// `NSTemporaryDirectory()`), and its keychain beside it, which outlives the app's data as on a
/// phone. Foundation on Linux finds these folders from the environment, and CoreFoundation reads
/// it once, as the process starts: the runner spawns the app with `launchEnvironment()`, and
/// the app checks that it started with `environment`.
public struct AppContainer: Sendable, Equatable {
    /// The container: `home` and `keychain`.
    public let root: String

    public init(root: String) { self.root = root }

    public var home: String { root + "/home" }
    public var keychain: String { root + "/keychain" }
    /// Where `UserDefaults.standard` keeps its plist (`XDG_CONFIG_HOME` on Linux).
    public var preferences: String { home + "/Library/Preferences" }

    /// Every folder of the layout, which the app creates as it starts.
    public var folders: [String] {
        [
            home + "/Documents", home + "/Library/Caches", home + "/Library/Application Support", preferences,
            home + "/tmp", keychain,
        ]
    }

    /// The variables that point Foundation at the container: its home, temporary folder, caches,
    /// application support and the defaults' plist.
    public var environment: [String: String] {
        [
            "HOME": home, "CFFIXED_USER_HOME": home, "TMPDIR": home + "/tmp",
            "XDG_CACHE_HOME": home + "/Library/Caches", "XDG_DATA_HOME": home + "/Library/Application Support",
            "XDG_CONFIG_HOME": preferences,
        ]
    }

    /// What the app starts with: `environment` and, of the runner's own, only what `passesOn`.
    public func launchEnvironment(from runner: [String: String] = ProcessInfo.processInfo.environment)
        -> [String: String]
    {
        runner.filter { Self.passesOn($0.key) }.merging(environment) { $1 }
    }

    /// Of the runner's environment an app gets only how to find programs and libraries, the
    /// locale and time zone, the runtime's diagnostics (Swift's backtraces, the sanitizers,
    /// coverage) and the tool's own switches (`SDLAB_…`). An app on a phone does not see its
    /// developer's shell, and on Linux every `FileManager.urls(for:in:)` copies the whole
    /// environment: a CI job's hundred variables would be paid at each call.
    public static func passesOn(_ name: String) -> Bool {
        ["PATH", "LD_LIBRARY_PATH", "LANG", "LANGUAGE", "TZ", "SWIFT_BACKTRACE", "LLVM_PROFILE_FILE"].contains(name)
            || name.hasPrefix("LC_") || name.hasPrefix("SDLAB_") || name.hasSuffix("SAN_OPTIONS")
    }
}
