#if canImport(Glibc)
    import Glibc
#endif

/// The pipe of `notify_register_file_descriptor`: each post writes the token to one end, the
/// app reads the other. Tokens registered with `NOTIFY_REUSE` share it; it is closed, both
/// ends, when the last of them is cancelled (Libnotify counts its descriptors the same way).
/// Unchecked: `users` and both descriptors are only used with the client's lock held, so a
/// write never reaches a descriptor number that a close has already handed to another file.
final class NotifyPipe: @unchecked Sendable {
    /// The end the app reads, which `notify_register_file_descriptor` returns.
    let readEnd: Int32
    private let writeEnd: Int32
    /// Registrations writing to it (and registrations under way).
    var users = 0

    private init(readEnd: Int32, writeEnd: Int32) {
        self.readEnd = readEnd
        self.writeEnd = writeEnd
    }

    /// A new pipe, closed on exec (Swift's Glibc module has no `pipe2`, so the flag follows
    /// `pipe`); its write end never blocks (a full pipe drops the token,
    /// which is a coalesced post: the app has not read the earlier ones yet).
    static func make() -> NotifyPipe? {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        return NotifyPipe(readEnd: ends[0], writeEnd: ends[1])
    }

    /// Writes the token as 4 bytes in network byte order.
    func write(_ token: Int32) {
        var word = token.bigEndian
        _ = withUnsafeBytes(of: &word) { Glibc.write(writeEnd, $0.baseAddress, $0.count) }
    }

    func close() {
        _ = Glibc.close(readEnd)
        _ = Glibc.close(writeEnd)
    }
}
