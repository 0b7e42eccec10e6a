import DeviceProcesses
import Foundation
import Glibc

/// The app's container as iOS lays it out (`AppContainer`), entered before any of the app's
/// code runs. The runner starts the app with the container's environment, since CoreFoundation
/// reads it only as the process starts (a `setenv` afterwards leaves `UserDefaults.standard`
/// writing to the home of whoever started the run); the sandbox checks that it did, and that
/// Foundation answers with the container's folders: an app whose data could land elsewhere
/// does not start.
struct Sandbox {
    let container: AppContainer

    init(root: String) { container = AppContainer(root: root) }

    var root: String { container.root }
    var home: String { container.home }
    var keychain: String { container.keychain }

    struct SetupError: Error, CustomStringConvertible {
        let description: String
    }

    /// Creates the folders (0700) and checks that Foundation is pointed at them.
    func enter() throws {
        for folder in container.folders {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        try checkStartingEnvironment()
        try checkFoundation()
    }

    /// The environment the process was started with, as the kernel keeps it: what
    /// CoreFoundation read.
    private func checkStartingEnvironment() throws {
        let started = Self.startingEnvironment()
        let wrong = container.environment.filter { started[$0.key] != $0.value }.keys.sorted()
        guard wrong.isEmpty else {
            throw SetupError(
                description: "it was started without its container's environment (\(wrong.joined(separator: ", "))"
                    + " not pointing into \(root)), so Foundation would keep its defaults elsewhere: start it"
                    + " through the runner, and keep these variables in a launcher script")
        }
    }

    /// `/proc/self/environ`: the variables as exec passed them, whatever was set since.
    static func startingEnvironment() -> [String: String] {
        guard let data = FileManager.default.contents(atPath: "/proc/self/environ") else { return [:] }
        var variables: [String: String] = [:]
        for entry in data.split(separator: 0) {
            guard let equals = entry.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = String(decoding: entry[..<equals], as: UTF8.self)
            variables[name] = String(decoding: entry[(equals + 1)...], as: UTF8.self)
        }
        return variables
    }

    /// Foundation's answers, each inside the container.
    private func checkFoundation() throws {
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
