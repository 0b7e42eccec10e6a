import Dispatch
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Copies what children write to a pipe (their stderr) into log files, each up to a cap: an
/// app that floods its stderr fills its log to the cap and no further, and the log says how
/// much was dropped. One thread serves every pipe (a fleet has thousands), woken by `poll`.
public final class LogPump: Sendable {
    public static let shared = LogPump()

    /// A log's cap when none is given: Docs/outputs.md lists it.
    public static let defaultCap = 1 << 20

    private struct Sink {
        var file: Int32
        let path: String
        let cap: Int
        var written = 0
        var dropped = 0
        let drained = DispatchSemaphore(value: 0)
    }

    /// Sinks by the read end of their pipe.
    private let sinks = Mutex<[Int32: Sink]>([:])
    /// Written to when a sink is added, so the thread polls it too.
    private let wake: (read: Int32, write: Int32)

    private init() {
        guard let wake = closeOnExecPipe() else { preconditionFailure("cannot make a pipe: \(errorText())") }
        self.wake = wake
        _ = fcntl(wake.read, F_SETFL, O_NONBLOCK)
        detachThread { [self] in run() }
    }

    /// From now on what arrives on `pipe` (a read end, which the pump closes) is appended to
    /// `path` (created 0600) until `cap` bytes.
    func copy(from pipe: Int32, to path: String, cap: Int) {
        let file = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0o600)
        sinks.withLock { $0[pipe] = Sink(file: file, path: path, cap: cap) }
        var byte: UInt8 = 1
        _ = Glibc.write(wake.write, &byte, 1)
    }

    /// Waits, at most `timeout`, until everything written to the log at `path` so far by a
    /// process that has ended is in the file. True once it is.
    public func waitUntilDrained(_ path: String, timeout: Duration) -> Bool {
        guard let sink = sinks.withLock({ $0.values.first { $0.path == path } }) else { return true }
        let nanoseconds = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
        guard sink.drained.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .success else { return false }
        sink.drained.signal()  // for whoever else waits
        return true
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            var polled = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            polled += sinks.withLock { $0.keys.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) } }
            guard poll(&polled, nfds_t(polled.count), -1) > 0 else { continue }
            if polled[0].revents != 0 { while read(wake.read, &buffer, buffer.count) > 0 {} }
            for entry in polled.dropFirst() where entry.revents != 0 {
                let count = read(entry.fd, &buffer, buffer.count)
                if count < 0, errno == EINTR || errno == EAGAIN { continue }
                if count > 0 { append(buffer[..<count], from: entry.fd) } else { finish(entry.fd) }
            }
        }
    }

    private func append(_ bytes: ArraySlice<UInt8>, from pipe: Int32) {
        sinks.withLock { sinks in
            guard var sink = sinks[pipe] else { return }
            let room = max(0, sink.cap - sink.written)
            let kept = bytes.prefix(room)
            if !kept.isEmpty { Self.append(kept, to: sink.file) }
            sink.written += kept.count
            if kept.count < bytes.count {
                if sink.dropped == 0 {
                    Self.append(
                        Self.bytes("\n[sdlab: this log is capped at \(sink.cap) bytes; what follows is dropped]\n"),
                        to: sink.file)
                }
                sink.dropped += bytes.count - kept.count
            }
            sinks[pipe] = sink
        }
    }

    /// The pipe's writers are all gone: the log says what was dropped, and is closed.
    private func finish(_ pipe: Int32) {
        guard let sink = sinks.withLock({ $0.removeValue(forKey: pipe) }) else { return }
        if sink.dropped > 0 {
            Self.append(Self.bytes("[sdlab: \(sink.dropped) bytes dropped past the cap]\n"), to: sink.file)
        }
        close(sink.file)
        close(pipe)
        sink.drained.signal()
    }

    private static func bytes(_ text: String) -> ArraySlice<UInt8> { Array(text.utf8)[...] }

    /// A log is not evidence: a write a full disk refuses is dropped.
    private static func append(_ bytes: ArraySlice<UInt8>, to file: Int32) {
        if file >= 0 { writeAll(bytes, to: file) }
    }
}
