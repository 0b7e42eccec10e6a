import CSystem
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Reads lines from a pipe with a deadline, for readiness handshakes with children. Used by
/// one thread at a time (it may be handed to the thread that waits).
public final class LineReader: @unchecked Sendable {
    private let fd: Int32
    private var buffer: [UInt8] = []

    public init(fd: Int32) { self.fd = fd }
    deinit { Glibc.close(fd) }

    /// The next line, nil at end of file (the writer exited) or after the deadline.
    public func readLine(timeout: Duration) -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            guard let milliseconds = pollMilliseconds(until: deadline) else { return nil }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(fd, &chunk, chunk.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            buffer += chunk[..<count]
        }
    }
}
