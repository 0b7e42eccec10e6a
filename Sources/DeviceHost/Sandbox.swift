import Foundation
import Glibc

/// Where an iOS app keeps data, inside the app's container: its home (`Documents`,
/// `Library/Caches`, `Library/Application Support`, `Library/Preferences` for
/// `UserDefaults.standard`, `tmp` for `NSTemporaryDirectory()`), and its keychain beside it,
/// which outlives the app's data as on a phone. Foundation on Linux finds these folders from
/// the environment, so the host sets it before any of the app's code runs, then checks that
/// Foundation answers with them: an app whose data could land elsewhere does not start.
struct Sandbox {
    /// The container: `home` and `keychain`.
    let root: String

    var home: String { root + "/home" }
    var keychain: String { root + "/keychain" }

    var folders: [String] {
        [
            home + "/Documents", home + "/Library/Caches", home + "/Library/Application Support",
            home + "/Library/Preferences", home + "/tmp", keychain,
        ]
    }

    struct SetupError: Error, CustomStringConvertible {
        let description: String
    }

    /// Creates the folders (0700) and points Foundation at them.
    func enter() throws {
        for folder in folders {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let environment = [
            "HOME": home, "CFFIXED_USER_HOME": home, "TMPDIR": home + "/tmp",
            "XDG_CACHE_HOME": home + "/Library/Caches", "XDG_DATA_HOME": home + "/Library/Application Support",
            "XDG_CONFIG_HOME": home + "/Library/Preferences",
        ]
        for (name, value) in environment { setenv(name, value, 1) }
        try check()
    }

    /// Foundation's answers, each inside the container.
    private func check() throws {
        let fileManager = FileManager.default
        let places: [(String, String?)] = [
            ("documents", fileManager.urls(for: .documentDirectory, in: .userDomainMask).first?.path),
            ("caches", fileManager.urls(for: .cachesDirectory, in: .userDomainMask).first?.path),
            (
                "application support",
                fileManager.urls(for: .applicationSupportDirectory, in: .userDomainMask).first?.path
            ),
            ("temporary folder", NSTemporaryDirectory()),
            ("home", NSHomeDirectory()),
        ]
        for (name, path) in places where !(path.map(isInside) ?? false) {
            throw SetupError(
                description: "Foundation's \(name) folder is \(path ?? "none"), outside the container \(home)")
        }
    }

    private func isInside(_ path: String) -> Bool { path == home || path.hasPrefix(home + "/") }
}
