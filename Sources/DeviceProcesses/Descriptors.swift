import CSystem
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Raises this process's limit of open files to the most it is allowed. A fleet needs a few
/// descriptors per app in the runner (its pipe, its pidfd) and one connection per app in the
/// bus, which inherits this limit: the usual soft limit, 1,024, stops a fleet near 1,000 apps.
public func raiseOpenFileLimit() {
    var limit = rlimit()
    guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else {
        return
    }
    limit.rlim_cur = limit.rlim_max
    _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
}

/// How many files this process may open (its soft limit), which the processes it starts
/// inherit; nil when unlimited or unknown.
public func openFileLimit() -> Int? {
    var limit = rlimit()
    guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else {
        return nil
    }
    return Int(clamping: limit.rlim_cur)
}

/// A pipe whose ends are close-on-exec from the start, so no process another thread starts
/// meanwhile inherits them; nil on failure (errno says why).
public func closeOnExecPipe() -> (read: Int32, write: Int32)? {
    var ends: [Int32] = [-1, -1]
    return sdlab_pipe_cloexec(&ends) == 0 ? (ends[0], ends[1]) : nil
}

/// Writes all of `bytes` to `fd` by the system call (a pipe may take them in parts). False
/// when the write fails (a full disk, a pipe nobody reads): the caller's process goes on.
@discardableResult
public func writeAll(_ bytes: some Collection<UInt8>, to fd: Int32) -> Bool {
    var rest = Array(bytes)[...]
    while !rest.isEmpty {
        let written = rest.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        if written < 0, errno == EINTR { continue }
        guard written > 0 else { return false }
        rest = rest.dropFirst(written)
    }
    return true
}
