import Crypto
import Foundation
import SharedDevice

/// The device attacker of SPEC §2.8: reads every file of every container, and tries every key
/// found on disk (any file of exactly 32 bytes, wherever it lies) on every file as AES-GCM.
public struct LeakScanner: Sendable {
    /// A canary the attacker can read, and where.
    public struct Finding: Hashable, Sendable {
        public var canary: Canary
        /// The container (app) whose folder holds the file.
        public var app: String
        public var file: String
        public var encrypted: Bool
    }

    public let containersFolder: String

    public init(containersFolder: String) { self.containersFolder = containersFolder }

    /// Everything readable, every container's.
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
                findings.insert(Finding(canary: canary, app: file.app, file: file.path, encrypted: false))
            }
            guard let box = try? AES.GCM.SealedBox(combined: bytes) else { continue }
            for key in keys {
                guard let plain = try? AES.GCM.open(box, using: key) else { continue }
                for canary in Canary.all(in: String(decoding: plain, as: UTF8.self)[...]) {
                    findings.insert(Finding(canary: canary, app: file.app, file: file.path, encrypted: true))
                }
            }
        }
        return findings.sorted { ($0.app, $0.file, $0.canary.description) < ($1.app, $1.file, $1.canary.description) }
    }

    /// Leaks: readable `sensitive`, `plain` or `external` canaries of anyone but `currentUser`.
    public static func leaks(in findings: [Finding], currentUser: String?) -> [Finding] {
        findings.filter { $0.canary.kind.leaksWhenReadable && $0.canary.user != currentUser }
    }

    /// Retained: readable `preferences` and `common` canaries of anyone but `currentUser`.
    public static func retained(in findings: [Finding], currentUser: String?) -> [Finding] {
        findings.filter { !$0.canary.kind.leaksWhenReadable && $0.canary.user != currentUser }
    }

    private func allFiles() -> [(app: String, path: String)] {
        let apps = (try? FileManager.default.contentsOfDirectory(atPath: containersFolder)) ?? []
        return apps.sorted().flatMap { app -> [(app: String, path: String)] in
            let root = containersFolder + "/" + app
            let enumerator = FileManager.default.enumerator(atPath: root)
            var files: [(app: String, path: String)] = []
            while let relative = enumerator?.nextObject() as? String {
                var isFolder: ObjCBool = false
                let path = root + "/" + relative
                if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue {
                    files.append((app, path))
                }
            }
            return files
        }
    }
}
