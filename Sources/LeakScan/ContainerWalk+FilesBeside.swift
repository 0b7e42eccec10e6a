#if canImport(Glibc)
    import Glibc
#endif

/// The files that belong with one the walk opened: a database's write-ahead log and journal lie
/// beside it under its name and a suffix.
extension ContainerWalk {
    /// The path the kernel has for an open file (its `/proc/self/fd` link), as bytes; nil when it
    /// has none to give (deleted, or longer than a page).
    static func path(of descriptor: Int32) -> [UInt8]? {
        var target = [UInt8](repeating: 0, count: 4097)
        let count = target.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                readlink("/proc/self/fd/\(descriptor)", $0.baseAddress!, $0.count)
            }
        }
        guard count > 0, count < target.count, target[0] == UInt8(ascii: "/") else { return nil }
        return Array(target.prefix(count))
    }

    /// The bytes of the regular file at `path`, not following a link at its end; nil when there
    /// is none or it cannot be read (the walk meets it too, and says so).
    static func contents(ofFileAt path: [UInt8]) -> [UInt8]? {
        let descriptor = open(path.map { CChar(bitPattern: $0) } + [0], O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
            case .success(let bytes) = contents(
                of: descriptor, size: Int(status.st_size), limit: LeakScanner.Budget.standard.fileBytes)
        else { return nil }
        return bytes
    }
}
