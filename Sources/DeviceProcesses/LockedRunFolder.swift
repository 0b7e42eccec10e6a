import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// A run's own folder under the temporary folder (`PREFIX-XXXXXX`, 0700: it holds the test
/// users' records), which says whether its run still lives. The run holds an exclusive lock on
/// `run.lock` inside it for its whole life and removes the file when it ends in any ordinary
/// way, before it removes or keeps the folder. A run killed outright (SIGKILL) cannot remove
/// anything: its folder is left with `run.lock` present and nobody holding it, which is how the
/// next run knows the folder is a dead run's and removes it.
public final class LockedRunFolder: Sendable {
    public let path: String
    private let lock: FileLock

    /// The prefixes of the folders `sdlab run`, `fuzz` and `bench` run in.
    public static let prefixes = ["sdlab-run", "sdlab-fuzz", "sdlab-bench"]
    static let lockFile = "run.lock"

    private init(path: String, lock: FileLock) {
        self.path = path
        self.lock = lock
    }

    deinit { release() }

    /// Makes a new private folder `BASE/PREFIX-XXXXXX` holding its run's lock.
    public static func make(prefix: String, in base: String = DevicePaths.temporaryBase) throws(LaunchError)
        -> LockedRunFolder
    {
        let path = try DevicePaths.makeTemporaryDirectory(prefix: prefix, in: base)
        // Locked under another name first and then renamed: `run.lock` is never seen unlocked,
        // so a sweep at that moment cannot take a starting run for a dead one.
        let staging = path + "/" + lockFile + ".new"
        do throws(LaunchError) {
            guard let lock = try FileLock.take(staging) else { throw LaunchError("\(staging) is locked by another") }
            guard rename(staging, path + "/" + lockFile) == 0 else {
                throw LaunchError("cannot name the lock of the run folder \(path): \(errorText())")
            }
            return LockedRunFolder(path: path, lock: lock)
        } catch {
            try? TreeRemoval.remove(path)
            throw error
        }
    }

    /// The run ended: `run.lock` goes first, then the lock, so the folder (kept to look into,
    /// or about to be removed) is never taken for a killed run's. Again: nothing.
    public func release() {
        unlink(path + "/" + Self.lockFile)
        lock.release()
    }

    /// A killed run's folder, and why it could not be removed (nil: it was).
    public struct KilledRunFolder: Sendable, Equatable {
        public let path: String
        public let failure: String?
    }

    /// Removes the folders that runs killed outright left in `base`, however deep, and returns
    /// them: a folder of ours (named with one of `prefixes`, not a link, this user's) that holds
    /// `run.lock` whose lock can be taken, so the run that held it is gone. A folder whose lock
    /// is held (a live run), one without the file (a finished run's, kept on purpose) or
    /// anything else is left alone.
    public static func removeFoldersOfKilledRuns(in base: String = DevicePaths.temporaryBase) -> [KilledRunFolder] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []
        return names.filter(isNamedLikeOurs).map { base + "/" + $0 }.compactMap(removeIfItsRunWasKilled)
    }

    private static func isNamedLikeOurs(_ name: String) -> Bool {
        prefixes.contains { name.hasPrefix($0 + "-") }
    }

    /// Removes `folder` while holding its dead run's lock, so that two runs sweeping at once do
    /// not both act on it; nil when it is not a killed run's.
    private static func removeIfItsRunWasKilled(_ folder: String) -> KilledRunFolder? {
        var info = stat()
        guard lstat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid(),
            let lock = FileLock.takeExisting(folder + "/" + lockFile)
        else { return nil }
        defer { lock.release() }
        do throws(TreeRemoval.Failure) {
            try TreeRemoval.remove(folder)
            return KilledRunFolder(path: folder, failure: nil)
        } catch {
            return KilledRunFolder(path: folder, failure: error.description)
        }
    }
}
