import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An exclusive `flock` on a file, taken without waiting. The kernel drops it with the last
/// descriptor of its open file: when `release` closes it, or when this process ends in any
/// way, even by SIGKILL. The descriptor is close-on-exec (and children get only stdin, stdout
/// and stderr), so no process we start holds the lock on after us.
public final class FileLock: Sendable {
    private let descriptor: Mutex<Int32?>

    private init(_ fd: Int32) { descriptor = Mutex(fd) }

    deinit { release() }

    /// Takes the lock on `path`, created 0600 if missing and never opened through a link; nil
    /// when another open file holds it.
    public static func take(_ path: String) throws(LaunchError) -> FileLock? {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw LaunchError("cannot open \(path): \(errorText())") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let why = errno
            close(fd)
            if why == EWOULDBLOCK { return nil }
            throw LaunchError("cannot lock \(path): \(errorText(why))")
        }
        return FileLock(fd)
    }

    /// Takes the lock on the regular file at `path` if it exists and nobody holds it; nil
    /// otherwise. Nil too when the file was removed or replaced while the lock was being taken:
    /// a lock its owner removes as it lets go says that it ended on purpose.
    public static func takeExisting(_ path: String) -> FileLock? {
        let fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0, isStill(fd, at: path) else {
            close(fd)
            return nil
        }
        return FileLock(fd)
    }

    /// Whether the open file `fd` is still the regular file at `path`.
    private static func isStill(_ fd: Int32, at path: String) -> Bool {
        var open = stat()
        var named = stat()
        guard fstat(fd, &open) == 0, lstat(path, &named) == 0 else { return false }
        return open.st_mode & S_IFMT == S_IFREG && open.st_nlink > 0 && open.st_dev == named.st_dev
            && open.st_ino == named.st_ino
    }

    /// Replaces the file's content: a note for whoever finds the lock held.
    public func write(_ text: String) {
        descriptor.withLock { fd in
            guard let fd else { return }
            let bytes = Array(text.utf8)
            _ = ftruncate(fd, 0)
            _ = pwrite(fd, bytes, bytes.count, 0)
        }
    }

    /// What the holder of the lock on `path` wrote there (empty if nothing yet).
    public static func note(at path: String) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = read(fd, &buffer, buffer.count)
        return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : ""
    }

    /// Lets go of the lock (again: nothing).
    public func release() {
        descriptor.withLock { fd in
            if let open = fd { close(open) }
            fd = nil
        }
    }
}
