import CDBus
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A connection served by a thread of the caller's, such as an app's main thread, instead of
/// an owner thread of its own: the caller's loop waits on the connection's descriptors along
/// with its own, and calls `serve` when they are ready. Replies, signals, incoming calls and the
/// jobs of tasks that prefer the connection then run on that one thread, so a message that
/// leads to work on the caller's loop costs no hop between threads.
extension Connection {
    /// Which thread reads, routes and runs the connection's jobs.
    public enum Owner: Sendable {
        /// A thread the connection starts for itself (as `connect(to:)`).
        case ownThread
        /// The thread that calls `connect(to:owner:)`. It must call `serve` whenever one of
        /// `ownerDescriptors` is ready, and at least once after it enqueues work itself: a job
        /// enqueued on the owner thread wakes nobody.
        case callingThread
    }

    /// The descriptors the owner's loop waits on: the bus socket (for `OwnerWait.socketEvents`)
    /// and the eventfd other threads write to when they queue work for the owner (for POLLIN).
    public struct OwnerDescriptors: Sendable, Equatable {
        public let socket: Int32
        public let wake: Int32
    }

    /// What the owner's loop waits for until its next `serve`.
    public struct OwnerWait: Sendable, Equatable {
        /// The poll() events the socket is to be watched for (POLLIN, and POLLOUT while
        /// something is unwritten).
        public var socketEvents: Int16
        /// How long the loop may wait at most before serving again (a call's deadline); -1:
        /// no bound.
        public var timeoutMilliseconds: Int32
        /// The connection has closed: the loop stops serving it.
        public var isClosed: Bool
    }

    /// Opens a private connection to `address` and registers with the bus (`Hello`), blocking
    /// the calling thread until the bus answers.
    public static func connect(to address: String, owner: Owner) throws(DBusError) -> Connection {
        _ = libdbusThreadsReady
        let connection = try Connection(opening: address, servedByCaller: owner == .callingThread)
        switch owner {
        case .callingThread: connection.state.withLock { $0.ownerThread = pthread_self() }
        case .ownThread: startThread { connection.runOwnerLoop() }
        }
        return connection
    }

    public var ownerDescriptors: OwnerDescriptors {
        OwnerDescriptors(socket: state.withLock { $0.socketFD }, wake: wakeFD)
    }

    /// Whether the calling thread is the connection's owner, of either kind: a call that blocks
    /// it waits for what only it can read, unless it serves while it waits
    /// (`isServedByCurrentThread`, `serve(until:timeout:)`).
    public var isOwnerThread: Bool {
        state.withLock { $0.ownerThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Whether the calling thread serves this connection (`Owner.callingThread`, not handed off).
    public var isServedByCurrentThread: Bool {
        servedByCaller.load(ordering: .acquiring) && isOwnerThread
    }

    /// Serves what is ready without blocking, on the owner thread only: lets libdbus read or
    /// write what poll() found (`socketReadiness`, its revents), then routes every complete
    /// message, one at a time: each message's receivers run, then the jobs it made ready, then
    /// `afterEachMessage`, all before the next message is routed. So whatever the caller's loop
    /// runs in `afterEachMessage` (its own queue, say) has run before the next message is seen.
    /// Last, the jobs enqueued meanwhile run.
    ///
    /// A receiver may wait in `serve(until:timeout:)`: messages routed there see no
    /// `afterEachMessage` until the outer call resumes.
    public func serve(
        socketReadiness: Int16, wakeReady: Bool, afterEachMessage: () -> Void = {}
    ) -> OwnerWait {
        precondition(isServedByCurrentThread, "serve is for the connection's owner thread only")
        if wakeReady {
            var counter: UInt64 = 0
            _ = read(wakeFD, &counter, 8)
        }
        if socketReadiness != 0 {
            state.withLock { state in if state.isOpen { state.watches.handle(socketReadiness) } }
        }
        while true {
            switch nextForOwner() {
            case .closed:
                return OwnerWait(socketEvents: 0, timeoutMilliseconds: -1, isClosed: true)
            case .closing:
                shutDown()
                return OwnerWait(socketEvents: 0, timeoutMilliseconds: -1, isClosed: true)
            case .expired(let expiries):
                for expiry in expiries { expiry() }
                runJobs()
            case .message(let raw):
                if route(raw) {
                    shutDown()
                    return OwnerWait(socketEvents: 0, timeoutMilliseconds: -1, isClosed: true)
                }
                runJobs()
                afterEachMessage()
            case .idle(let wait):
                // Jobs may have sent (POLLOUT), closed, or set a nearer deadline: look again.
                if runJobs() { continue }
                return wait
            }
        }
    }

    /// Serves the connection on its owner thread until `done()` holds or `timeout` passes, for
    /// a blocking call made on that thread: the answer it waits for can only arrive this way.
    /// Returns whether `done()` held.
    public func serve(until done: () -> Bool, timeout: Duration) -> Bool {
        let deadline = monotonicNanoseconds() &+ timeout.nanoseconds
        let descriptors = ownerDescriptors
        var fds = [
            pollfd(fd: descriptors.socket, events: 0, revents: 0),
            pollfd(fd: descriptors.wake, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let wait = serve(socketReadiness: fds[0].revents, wakeReady: fds[1].revents != 0)
            if done() { return true }
            let now = monotonicNanoseconds()
            if wait.isClosed || now >= deadline { return false }
            let remaining = Int32(min((deadline - now + 999_999) / 1_000_000, UInt64(Int32.max)))
            fds[0].events = wait.socketEvents
            fds[0].revents = 0
            fds[1].revents = 0
            let bound = wait.timeoutMilliseconds < 0 ? remaining : min(remaining, wait.timeoutMilliseconds)
            _ = poll(&fds, 2, bound)
        }
    }

    /// Gives the connection an owner thread of its own from now on; the calling thread, its
    /// owner until now, serves it no more. For a loop that stops being able to serve it.
    public func handOffToOwnThread() {
        precondition(isServedByCurrentThread, "only the owner thread hands the connection off")
        servedByCaller.store(false, ordering: .releasing)
        state.withLock { $0.ownerThread = nil }
        startThread { self.runOwnerLoop() }
    }

    private enum OwnerStep {
        case closed, closing, idle(OwnerWait), expired([Expiry]), message(OpaquePointer)
    }

    /// The owner's next step, under the lock: one message at a time, so that a receiver that
    /// serves again (`serve(until:timeout:)`) takes the next one rather than a later one.
    private func nextForOwner() -> OwnerStep {
        state.withLock { state in
            guard state.isOpen else { return .closed }
            guard !state.closeRequested else { return .closing }
            let now = monotonicNanoseconds()
            if now >= state.earliestDeadline { return .expired(state.removeExpired(now: now)) }
            if let message = dbus_connection_pop_message(state.raw.pointer) { return .message(message) }
            var timeout: Int32 = -1
            if state.earliestDeadline != .max {
                let remaining = (state.earliestDeadline - now + 999_999) / 1_000_000
                timeout = Int32(min(remaining, UInt64(Int32.max)))
            }
            return .idle(OwnerWait(socketEvents: state.watches.events(), timeoutMilliseconds: timeout, isClosed: false))
        }
    }
}
