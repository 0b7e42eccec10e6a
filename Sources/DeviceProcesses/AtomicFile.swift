import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A file replaced atomically: a temporary file, then rename, so that after a process is
/// killed at any moment readers find either the old content or the new. No fsync: the device
/// is simulated, its processes crash but its machine does not, and the page cache survives a
/// SIGKILL; an fsync would put milliseconds of disk wait on every check and cleanup.
public enum AtomicFile {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Writes a private (0600) file so that readers see either the old content or the new.
    public static func write(_ data: Data, to path: String) throws {
        let temporary = "\(path).tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw posixError("cannot create \(temporary)") }
        let written = data.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                offset += n
            }
            return true
        }
        let failure = posixError("cannot write \(temporary)")
        close(fd)
        guard written else {
            unlink(temporary)
            throw failure
        }
        guard rename(temporary, path) == 0 else {
            let failure = posixError("cannot rename \(temporary) to \(path)")
            unlink(temporary)
            throw failure
        }
    }

    private static func posixError(_ what: String) -> Failure {
        Failure(description: "\(what): \(String(cString: strerror(errno)))")
    }
}
