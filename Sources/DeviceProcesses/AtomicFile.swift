import CSystem
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// A file replaced atomically, so that after a process is killed at any moment readers find
/// either the old content or the new. The new content is written over the sibling `NAME.swap`,
/// which is exchanged with the file in one step (`renameat2` with `RENAME_EXCHANGE`) and then
/// written over again (or removed, if the disk is full), so that nothing of the previous
/// content is left. The save has succeeded once the exchange is done. The two inodes are
/// reused from one write to the next and nothing is truncated to zero: on ext4 a new inode
/// (without a journal, each creation scans for recently deleted ones), a rename over a file and
/// a truncation to zero all cost far more than the write, and a fleet's apps all save at once.
/// One process writes a given file.
///
/// No fsync: the device is simulated, its processes crash but its machine does not, and the
/// page cache survives a SIGKILL; an fsync would put milliseconds of disk wait on every check
/// and cleanup.
public enum AtomicFile {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Writes a private (0600) file so that readers see either the old content or the new.
    public static func write(_ data: Data, to path: String) throws {
        let swap = path + ".swap"
        try overwrite(swap, with: data)
        if sdlab_exchange_paths(swap, path) == 0 {
            // The new content is in place: the write succeeded. The swap now holds the old
            // content; if it cannot be written over (a full disk), it goes instead.
            if (try? overwrite(swap, with: data)) == nil { unlink(swap) }
            return
        }
        // The first write (nothing to exchange with), or a file system without exchange.
        guard errno == ENOENT || errno == EINVAL, rename(swap, path) == 0 else {
            let failure = posixError("cannot replace \(path)")
            unlink(swap)
            throw failure
        }
    }

    /// Writes `data` from the start of the file and cuts off whatever was longer.
    private static func overwrite(_ path: String, with data: Data) throws {
        // Never through a link: one planted in a shared folder would redirect the write.
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw posixError("cannot create \(path)") }
        defer { close(fd) }
        guard writeFully(fd, data), ftruncate(fd, off_t(data.count)) == 0 else {
            throw posixError("cannot write \(path)")
        }
    }

    /// Writes all of `data` from the start of the open file `fd`; false when the disk refuses.
    static func writeFully(_ fd: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let n = pwrite(fd, buffer.baseAddress! + offset, buffer.count - offset, off_t(offset))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                offset += n
            }
            return true
        }
    }

    private static func posixError(_ what: String) -> Failure {
        Failure(description: "\(what): \(errorText())")
    }
}
