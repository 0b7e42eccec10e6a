import Crypto
import Foundation
import SharedDevice

/// The device attacker of Docs/behaviour.md §8: reads every file of the containers it is given, and tries
/// every key found there (any file of exactly 32 bytes, wherever it lies) on every file as
/// AES-GCM. The runner scans every container; an app scans its own after each cleanup, to
/// confirm what the cleanup left.
public struct LeakScanner: Sendable {
    /// A canary the attacker can read, and where.
    public struct Finding: Hashable, Sendable {
        public var canary: Canary
        /// The container (app) whose folder holds the file.
        public var app: String
        public var file: String
        /// The file inside the container, as a person finds it: `documents/cou1/plain-1.txt`.
        public var place: String
        public var encrypted: Bool

        public init(canary: Canary, app: String, file: String, place: String, encrypted: Bool) {
            self.canary = canary
            self.app = app
            self.file = file
            self.place = place
            self.encrypted = encrypted
        }
    }

    /// The containers to read: app name and folder.
    public let containers: [(app: String, root: String)]

    /// Every container in `containersFolder` (a folder per app, named after it).
    public init(containersFolder: String) {
        let apps = (try? FileManager.default.contentsOfDirectory(atPath: containersFolder)) ?? []
        containers = apps.sorted().map { ($0, containersFolder + "/" + $0) }
    }

    /// One app's container.
    public init(container root: String, app: String) { containers = [(app, root)] }

    /// Everything readable.
    public func scan() -> [Finding] {
        let files = allFiles()
        let keys = files.compactMap { file -> SymmetricKey? in
            guard let bytes = FileManager.default.contents(atPath: file.path), bytes.count == 32 else { return nil }
            return SymmetricKey(data: bytes)
        }
        var findings = Set<Finding>()
        for file in files {
            guard let bytes = FileManager.default.contents(atPath: file.path) else { continue }
            for canary in Canary.all(in: String(decoding: bytes, as: UTF8.self)[...]) {
                findings.insert(
                    Finding(canary: canary, app: file.app, file: file.path, place: file.place, encrypted: false))
            }
            guard let box = try? AES.GCM.SealedBox(combined: bytes) else { continue }
            for key in keys {
                guard let plain = try? AES.GCM.open(box, using: key) else { continue }
                for canary in Canary.all(in: String(decoding: plain, as: UTF8.self)[...]) {
                    findings.insert(
                        Finding(canary: canary, app: file.app, file: file.path, place: file.place, encrypted: true))
                }
            }
        }
        return findings.sorted { ($0.app, $0.file, $0.canary.description) < ($1.app, $1.file, $1.canary.description) }
    }

    /// Another user's readable data, split as Docs/behaviour.md §8 says: user data is always a leak;
    /// preferences and common data are retained when the app's cleanup declares it keeps them,
    /// else leaks too.
    public static func judge(
        _ findings: [Finding], currentUser: String?,
        cleanup: CleanupPolicy
    ) -> (leaks: [Finding], retained: [Finding]) {
        let others = findings.filter { $0.canary.user != currentUser }
        return (others.filter { cleanup.leaks($0.canary.kind) }, others.filter { !cleanup.leaks($0.canary.kind) })
    }

    private func allFiles() -> [(app: String, path: String, place: String)] {
        containers.flatMap { app, root -> [(app: String, path: String, place: String)] in
            let enumerator = FileManager.default.enumerator(atPath: root)
            var files: [(app: String, path: String, place: String)] = []
            while let relative = enumerator?.nextObject() as? String {
                var isFolder: ObjCBool = false
                let path = root + "/" + relative
                if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue {
                    files.append((app, path, relative))
                }
            }
            return files
        }
    }
}

extension Collection where Element == LeakScanner.Finding {
    /// By user and kind, with where: `cou1 plain ×2 (documents/cou1/plain-1.txt, documents/cou1/plain-2.txt)`;
    /// at most three files named per group.
    public var described: String {
        let groups = Dictionary(grouping: self) { "\($0.canary.user) \($0.canary.kind.rawValue)" }
        return groups.keys.sorted().map { group in
            let files = Array(Set(groups[group]!.map(\.place))).sorted()
            let shown =
                files.prefix(3).joined(separator: ", ") + (files.count > 3 ? ", … \(files.count - 3) more files" : "")
            return "\(group) ×\(groups[group]!.count) (\(shown))"
        }.joined(separator: ", ")
    }
}
