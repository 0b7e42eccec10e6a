import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The one file that holds a keychain's items, `items.json` in its folder: JSON, each item's
/// secret in base64. It is replaced whole and atomically (written beside it, renamed over it), so
/// that a crash at any moment leaves the old items or the new. No fsync: the device's apps crash
/// but its machine does not, and the page cache outlives a killed process; two fsyncs would put
/// milliseconds of disk wait on every keychain write, inside the exposure a run measures. It is private
/// (0600), in a private folder (0700). It is read again at every call: the keychain outlives
/// the process, and the app run again after a crash finds its items there.
struct ItemsFile: Sendable {
    let folder: String

    var path: String { folder + "/items.json" }
    /// One name, rewritten at each save: one process uses a keychain, and its calls take turns.
    private var temporaryPath: String { folder + "/items.json.tmp" }

    private struct Contents: Codable {
        var items: [StoredItem]
    }

    /// The items; none before the first save.
    func load() throws(KeychainFailure) -> [StoredItem] {
        let bytes: Data
        do {
            bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            guard FileManager.default.fileExists(atPath: path) else { return [] }
            throw .io
        }
        do {
            return try JSONDecoder().decode(Contents.self, from: bytes).items
        } catch {
            // Never overwritten: a file this keychain cannot read may hold an app's secrets.
            throw KeychainFailure(status: errSecDecode)
        }
    }

    /// Replaces the items; errSecIO when they could not be written (a full disk), the file then
    /// holding what it held.
    func save(_ items: [StoredItem]) throws(KeychainFailure) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let bytes = try? encoder.encode(Contents(items: items)) else { throw .io }
        try createFolder()
        try replace(with: bytes)
    }

    private func createFolder() throws(KeychainFailure) {
        guard !FileManager.default.fileExists(atPath: folder) else { return }
        do {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .io
        }
    }

    private func replace(with bytes: Data) throws(KeychainFailure) {
        // Never through a link: one planted in the folder would send the secrets elsewhere.
        let fd = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw .io }
        // A file left by a crash keeps its mode through O_TRUNC: set it again.
        let written = fchmod(fd, 0o600) == 0 && Self.writeFully(fd, bytes)
        let closed = close(fd) == 0
        guard written, closed, rename(temporaryPath, path) == 0 else {
            unlink(temporaryPath)
            throw .io
        }
    }

    /// Writes all of `bytes` to `fd`; false when the disk refuses them.
    private static func writeFully(_ fd: Int32, _ bytes: Data) -> Bool {
        bytes.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }
}
