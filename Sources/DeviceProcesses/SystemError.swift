import Glibc

/// The system's words for an error number and its name, `File too large (EFBIG)`: what a
/// message about a failed system call shows, so that the cause can be looked up.
public func errorText(_ code: Int32 = errno) -> String {
    String(cString: strerror(code)) + (errorNames[code].map { " (\($0))" } ?? " (errno \(code))")
}

private let errorNames: [Int32: String] = [
    EPERM: "EPERM", ENOENT: "ENOENT", EINTR: "EINTR", EIO: "EIO", ENXIO: "ENXIO", EBADF: "EBADF",
    EAGAIN: "EAGAIN", ENOMEM: "ENOMEM", EACCES: "EACCES", EEXIST: "EEXIST", ENODEV: "ENODEV",
    ENOTDIR: "ENOTDIR", EISDIR: "EISDIR", EINVAL: "EINVAL", ENFILE: "ENFILE", EMFILE: "EMFILE",
    ETXTBSY: "ETXTBSY", EFBIG: "EFBIG", ENOSPC: "ENOSPC", ESPIPE: "ESPIPE", EROFS: "EROFS", EPIPE: "EPIPE",
    ENAMETOOLONG: "ENAMETOOLONG", ELOOP: "ELOOP", ENOTEMPTY: "ENOTEMPTY", EDQUOT: "EDQUOT", ESRCH: "ESRCH",
]
