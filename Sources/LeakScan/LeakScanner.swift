import Crypto
import DeviceProcesses
import FoundationEssentials
import SharedDevice

#if canImport(Glibc)
    import Glibc
#endif

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
        let files = containers.flatMap { app, root in
            Self.files(under: root).map { (app: app, path: root + "/" + $0, place: $0) }
        }
        let contents = files.map { Self.contents(of: $0.path) }
        let keys = contents.compactMap { $0.count == 32 ? SymmetricKey(data: $0) : nil }
        var findings = Set<Finding>()
        for (file, bytes) in zip(files, contents) {
            for canary in Canary.all(inUTF8: bytes) {
                findings.insert(
                    Finding(canary: canary, app: file.app, file: file.path, place: file.place, encrypted: false))
            }
            // A sealed box is at least its nonce and tag.
            guard !keys.isEmpty, bytes.count >= 28, let box = try? AES.GCM.SealedBox(combined: bytes) else { continue }
            for key in keys {
                guard let plain = try? AES.GCM.open(box, using: key) else { continue }
                for canary in Canary.all(inUTF8: Array(plain)) {
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

    /// Every regular file under `root`, as paths relative to it (a folder walk with readdir:
    /// an app scans its own container after each cleanup, so this is on a hot path).
    static func files(under root: String, relative: String = "") -> [String] {
        FolderListing.entries(of: relative.isEmpty ? root : root + "/" + relative).flatMap { entry in
            let path = relative.isEmpty ? entry.name : relative + "/" + entry.name
            // Links and the rest are not the app's files.
            return entry.isFolder ? files(under: root, relative: path) : entry.isFile ? [path] : []
        }
    }

    /// A file's bytes; none if it cannot be read.
    static func contents(of path: String) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return bytes }
            bytes += buffer[..<count]
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
