import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Termination requests for a long-running process (SIGTERM, SIGINT, SIGHUP): the process
/// stops cleanly instead of dying in the middle of a write.
///
/// A plain handler writes the signal number to a pipe (the one thing a handler may safely
/// do) and a watcher thread hands it to whoever awaits. This works whatever the signal mask
/// of the runtime's threads and whatever disposition the process inherited.
public enum TerminationSignals {
    public static let watched: [Int32] = [SIGTERM, SIGINT, SIGHUP]

    /// Catches the signals from now on, before anyone awaits them: a process that says it is
    /// ready must call this first, or a signal sent right after "ready" kills it outright.
    public static func install() { _ = SignalWatcher.shared }

    /// Returns the first termination signal delivered from now on (or caught since `install`
    /// while nobody waited). Cancellable.
    public static func next() async -> Int32 {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        let id = SignalWatcher.shared.subscribe(continuation)
        continuation.onTermination = { _ in SignalWatcher.shared.unsubscribe(id) }
        for await number in stream { return number }
        return 0
    }
}

/// The pipe the signal handler writes to; made before any handler is installed.
private let signalPipe: (read: Int32, write: Int32) = {
    guard let ends = closeOnExecPipe() else { preconditionFailure("cannot create the signal pipe") }
    return ends
}()

private final class SignalWatcher: Sendable {
    static let shared = SignalWatcher()

    private struct State {
        var subscribers: [Int: AsyncStream<Int32>.Continuation] = [:]
        var nextID = 0
        /// Signals that came while nobody waited: the next waiter gets them.
        var unclaimed: [Int32] = []
    }

    private let state = Mutex(State())

    private init() {
        _ = signalPipe  // the pipe exists before the first handler can run
        for number in TerminationSignals.watched {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(signalPipe.write, &byte, 1)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
        }
        detachThread { [self] in watch() }
    }

    private func watch() {
        var byte: UInt8 = 0
        while true {
            let count = read(signalPipe.read, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { return }
            let receivers = state.withLock { state in
                if state.subscribers.isEmpty { state.unclaimed.append(Int32(byte)) }
                return Array(state.subscribers.values)
            }
            for receiver in receivers { receiver.yield(Int32(byte)) }
        }
    }

    func subscribe(_ continuation: AsyncStream<Int32>.Continuation) -> Int {
        state.withLock { state in
            state.nextID += 1
            state.subscribers[state.nextID] = continuation
            // Under the lock, so that they come before any signal the watcher hands over next;
            // nobody iterates the new stream yet, so this only buffers.
            state.unclaimed.forEach { continuation.yield($0) }
            state.unclaimed = []
            return state.nextID
        }
    }

    func unsubscribe(_ id: Int) {
        // The continuation is released after the lock (it is returned).
        _ = state.withLock { $0.subscribers.removeValue(forKey: id) }
    }
}
