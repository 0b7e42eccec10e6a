import CDBus
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A private connection to one bus, given by its address: never the system or a session bus
/// implicitly.
///
/// Each connection has one owner thread that reads, dispatches and waits in poll() on the
/// socket and on a wake-up eventfd. Other threads may send: they take the connection lock,
/// which the owner holds whenever it touches libdbus, so libdbus only ever sees one caller at
/// a time and the cooperative pool never waits on I/O. Incoming method calls run on the owner
/// thread (synchronous handlers) or in a task (asynchronous handlers).
///
/// A connection lives until `close()` or until the bus goes away.
///
/// The lock is not recursive: nothing the connection calls out to (replies, handlers,
/// subscribers' ends, jobs) runs with it held, and what it removes from its state is released
/// after it, since a handler's captures may use the connection when they go.
public final class Connection: Sendable {
    /// The unique name the bus gave this connection (`:1.42`).
    public let uniqueName: String

    /// The connection lock. libdbus's connection is part of the state, so it can only be
    /// reached with the lock held.
    let state: Mutex<State>
    /// The owner thread's wake-up eventfd, open until the connection goes away, so that it is
    /// written after the lock is let go (the owner, woken, takes that lock first thing) without
    /// ever naming another file.
    let wakeFD: Int32
    /// Whether a thread of the caller's serves the connection (`serve`) instead of a thread of
    /// its own; see `connect(to:owner:)`.
    let servedByCaller: Atomic<Bool>

    struct State {
        /// Unreferenced by `shutDown`: every use checks `isOpen` or `closeRequested` first.
        let raw: RawConnection
        let socketFD: Int32
        /// libdbus's watches on the socket, which the owner's poll serves.
        let watches: SocketWatches
        fileprivate(set) var isOpen = true
        fileprivate(set) var closeRequested = false
        fileprivate var closeWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        fileprivate var nextCloseWaiter: UInt64 = 0
        fileprivate var pendingCalls: [UInt32: PendingCall] = [:]
        /// `schedule(after:_:)`'s work, each with its deadline.
        fileprivate var timers: [(deadline: UInt64, fire: Expiry)] = []
        fileprivate(set) var earliestDeadline = UInt64.max
        var objects = ObjectRegistry()
        var subscriptions = SubscriptionRegistry()
        /// Jobs of tasks that prefer this connection as their executor.
        fileprivate var jobs: [UnownedJob] = []
        var ownerThread: pthread_t?
    }

    /// What a call's reply (its values, or the error it carries or why none came) is handed to.
    public typealias ReplyHandler = @Sendable (Result<[DBusValue], any Error>) -> Void

    struct PendingCall {
        let reply: ReplyHandler
        let deadline: UInt64
    }

    /// What runs on the owner thread once its deadline has passed: a call's `NoReply`, a timer.
    typealias Expiry = @Sendable () -> Void

    /// Opens a private connection to `address` and registers with the bus (`Hello`).
    public static func connect(to address: String) async throws -> Connection {
        _ = libdbusThreadsReady
        return try await withCheckedThrowingContinuation { continuation in
            startThread {
                let connection: Connection
                do {
                    connection = try Connection(opening: address)
                } catch {
                    continuation.resume(throwing: error)
                    return
                }
                continuation.resume(returning: connection)
                connection.runOwnerLoop()
            }
        }
    }

    init(opening address: String, servedByCaller: Bool = false) throws(DBusError) {
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let raw = dbus_connection_open_private(address, &error) else {
            throw DBusError(libdbus: error, fallback: "cannot connect to \(address)")
        }
        dbus_connection_set_exit_on_disconnect(raw, 0)
        guard dbus_bus_register(raw, &error) != 0, let name = dbus_bus_get_unique_name(raw) else {
            dbus_connection_close(raw)
            dbus_connection_unref(raw)
            throw DBusError(libdbus: error, fallback: "cannot register with the bus at \(address)")
        }
        var fd: Int32 = -1
        dbus_connection_get_unix_fd(raw, &fd)
        self.uniqueName = String(cString: name)
        let wakeFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        let watches = SocketWatches(on: raw)
        self.wakeFD = wakeFD
        self.servedByCaller = Atomic(servedByCaller)
        self.state = Mutex(State(raw: RawConnection(pointer: raw), socketFD: fd, watches: watches))
    }

    deinit { Glibc.close(wakeFD) }

    /// Wakes the owner thread; called after the state's lock is let go.
    func wakeOwner() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    // MARK: - Sending

    /// Calls a method and returns the reply's values. An error reply throws a `DBusError` with
    /// its name and message; no reply within `timeout` throws `org.freedesktop.DBus.Error.NoReply`.
    public func call(
        destination: String?, path: ObjectPath, interface: String?, member: String,
        _ arguments: [DBusValue] = [], timeout: Duration = .seconds(25)
    ) async throws -> [DBusValue] {
        let message = try OutgoingMessage.methodCall(
            destination: destination, path: path, interface: interface, member: member, body: arguments)
        let deadline = monotonicNanoseconds() &+ timeout.nanoseconds
        let ticket = CallTicket()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                do {
                    try register(message, deadline: deadline, ticket: ticket) { continuation.resume(with: $0) }
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            let cancelled = state.withLock { state in
                ticket.cancelled = true
                return ticket.serial.flatMap { state.pendingCalls.removeValue(forKey: $0) }
            }
            cancelled?.reply(.failure(CancellationError()))
        }
    }

    /// Calls a method as `call` does, without a task: `reply` gets the outcome on the owner
    /// thread as the reply is routed (or once the timeout passes or the connection closes), or
    /// at once on the calling thread when the call cannot be sent. For a caller that answers
    /// every post with a call: it pays no task, continuation or executor hop per call.
    public func call(
        destination: String?, path: ObjectPath, interface: String?, member: String,
        _ arguments: [DBusValue] = [], timeout: Duration = .seconds(25), reply: @escaping ReplyHandler
    ) {
        do {
            let message = try OutgoingMessage.methodCall(
                destination: destination, path: path, interface: interface, member: member, body: arguments)
            try register(message, deadline: monotonicNanoseconds() &+ timeout.nanoseconds, ticket: nil, reply: reply)
        } catch {
            reply(.failure(error))
        }
    }

    /// Runs `work` on the owner thread once `delay` has passed (at once if the connection is
    /// closed, or when it closes): a timer for a process whose connection is served by its main
    /// thread, which starts no thread for it (a dispatch timer would start two).
    public func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) {
        let deadline = monotonicNanoseconds() &+ delay.nanoseconds
        let scheduled = state.withLock { state -> (accepted: Bool, earlier: Bool) in
            guard state.isOpen, !state.closeRequested else { return (false, false) }
            state.timers.append((deadline, work))
            let earlier = deadline < state.earliestDeadline
            if earlier { state.earliestDeadline = deadline }
            return (true, earlier)
        }
        if !scheduled.accepted { return work() }
        if scheduled.earlier { wakeOwner() }
    }

    /// Sends a signal from `path` and returns its serial, which receivers see. Anyone may
    /// emit any signal; see `emit(_:of:from:_:)` for signals of an interface this process exports.
    @discardableResult
    public func emitSignal(
        path: ObjectPath, interface: String, member: String,
        _ arguments: [DBusValue] = [], destination: String? = nil
    ) throws(DBusError) -> UInt32 {
        let message = try OutgoingMessage.signal(
            path: path, interface: interface, member: member,
            destination: destination, body: arguments)
        return try send(message)
    }

    /// Waits until every message sent so far has been written to the socket (or the
    /// connection is closed). For processes that exit right after sending.
    public func flush() async {
        _ = try? await call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus.Peer", member: "Ping")
    }

    /// Blocks this thread until every message queued so far is written to the socket: for a
    /// process about to end itself on purpose (the owner thread may be this one, so `flush`,
    /// which waits for the bus's answer, would never return).
    public func writeQueued() {
        state.withLock { state in
            if state.isOpen { dbus_connection_flush(state.raw.pointer) }
        }
    }

    /// Closes the connection after writing what is queued, and waits until the owner thread
    /// has let go of it. Pending calls fail with `Disconnected`; subscriptions end.
    public func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let alreadyClosed = state.withLock { state in
                guard state.isOpen else { return true }
                state.closeRequested = true
                state.closeWaiters[state.nextCloseWaiter] = continuation
                state.nextCloseWaiter += 1
                return false
            }
            if alreadyClosed { continuation.resume() } else { wakeOwner() }
        }
    }

    /// Returns once the connection has closed (by `close()` or because the bus went away), or
    /// once the waiting task is cancelled.
    public func closed() async {
        let id = state.withLock { state in
            defer { state.nextCloseWaiter += 1 }
            return state.nextCloseWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Under the lock, so that a cancellation is seen here or finds the waiter there.
                let resumeNow = state.withLock { state in
                    guard state.isOpen, !Task.isCancelled else { return true }
                    state.closeWaiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.closeWaiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Whether the connection is still usable.
    public var isConnected: Bool { state.withLock { $0.isOpen && !$0.closeRequested } }

    @discardableResult
    func send(_ message: OpaquePointer) throws(DBusError) -> UInt32 {
        defer { dbus_message_unref(message) }
        let (serial, wake) = try state.withLock { (state: inout State) throws(DBusError) -> (UInt32, Bool) in
            let (serial, unwritten) = try state.send(message)
            return (serial, unwritten && state.isOpen)
        }
        if wake { wakeOwner() }
        return serial
    }

    /// Sends a call and keeps `reply` for its answer; `ticket` (when cancellable) learns its serial.
    private func register(
        _ message: OpaquePointer, deadline: UInt64, ticket: CallTicket?, reply: @escaping ReplyHandler
    ) throws {
        defer { dbus_message_unref(message) }
        let wake = try state.withLock { state throws -> Bool in
            // Cancelled before it was sent: the same error as when cancelled while waiting.
            if ticket?.cancelled == true { throw CancellationError() }
            let (serial, unwritten) = try state.send(message)
            state.pendingCalls[serial] = PendingCall(reply: reply, deadline: deadline)
            ticket?.serial = serial
            let earlier = deadline < state.earliestDeadline
            if earlier { state.earliestDeadline = deadline }
            return (unwritten || earlier) && state.isOpen
        }
        if wake { wakeOwner() }
    }

    // MARK: - The owner thread

    private struct Pump {
        var incoming: [OpaquePointer] = []
        var expired: [Expiry] = []
        /// What libdbus waits for on the socket (POLLIN, POLLOUT).
        var socketEvents: Int16 = 0
        var timeoutMilliseconds: Int32 = -1
    }

    func runOwnerLoop() {
        let socketFD = state.withLock { state in
            state.ownerThread = pthread_self()
            return state.socketFD
        }
        var fds = [
            pollfd(fd: socketFD, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0),
        ]
        var disconnected = false
        while !disconnected, let pump = pumpOnce() {
            for raw in pump.incoming {
                if route(raw) { disconnected = true }
                // A task that prefers this executor and was resumed by this message runs
                // before the next message is routed: it sees exactly what arrived before it.
                runJobs()
            }
            for expiry in pump.expired { expiry() }
            if disconnected { break }
            runJobs()
            fds[0].events = pump.socketEvents
            fds[0].revents = 0
            fds[1].revents = 0
            _ = poll(&fds, 2, pump.timeoutMilliseconds)
            let socketReady = fds[0].revents
            if socketReady != 0 { state.withLock { $0.watches.handle(socketReady) } }
            if fds[1].revents != 0 {
                var counter: UInt64 = 0
                _ = read(wakeFD, &counter, 8)
            }
        }
        shutDown()
    }

    /// One round under the lock: take every complete message (the socket was read by the
    /// watches after the last poll), expire calls past their deadline, and say what to poll
    /// for. nil once a close was requested.
    private func pumpOnce() -> Pump? {
        state.withLock { state in
            guard !state.closeRequested else { return nil }
            var pump = Pump()
            while let message = dbus_connection_pop_message(state.raw.pointer) { pump.incoming.append(message) }
            let now = monotonicNanoseconds()
            if now >= state.earliestDeadline { pump.expired = state.removeExpired(now: now) }
            pump.socketEvents = state.watches.events()
            if state.earliestDeadline != .max {
                let remaining = (state.earliestDeadline - min(now, state.earliestDeadline) + 999_999) / 1_000_000
                pump.timeoutMilliseconds = Int32(min(remaining, UInt64(Int32.max)))
            }
            return pump
        }
    }

    /// Hands one message to whoever waits for it. Returns true when the bus went away.
    ///
    /// The body is decoded only for whoever takes it: a call no method accepts or a reply no
    /// call waits for costs nothing however large its body (decoded, a byte takes some forty
    /// bytes of memory), and leaves none of its unix fds open here.
    func route(_ raw: OpaquePointer) -> Bool {
        defer { dbus_message_unref(raw) }
        let type = dbus_message_get_type(raw)
        if type == DBUS_MESSAGE_TYPE_METHOD_RETURN || type == DBUS_MESSAGE_TYPE_ERROR {
            // A reply needs nothing of its header but the serial it answers.
            let serial = dbus_message_get_reply_serial(raw)
            guard let call = state.withLock({ $0.pendingCalls.removeValue(forKey: serial) }) else { return false }
            call.reply(Message.outcome(ofReply: raw))
            return false
        }
        guard let header = Message(decodingHeaderOf: raw) else { return false }
        switch header.kind {
        case .signal:
            if header.isLocalDisconnect { return true }
            deliverSignal(header.withBody(of: raw))
        case .methodCall:
            handleMethodCall(header) { count in header.withBody(of: raw, first: count) }
        case .methodReturn, .error:
            break  // routed above, by serial
        }
        return false
    }

    func shutDown() {
        let (calls, timers, subscribers, waiters, leftover) = state.withLock { state in
            state.isOpen = false
            state.closeRequested = true
            dbus_connection_flush(state.raw.pointer)
            dbus_connection_close(state.raw.pointer)
            dbus_connection_unref(state.raw.pointer)
            defer {
                state.pendingCalls = [:]
                state.timers = []
                state.closeWaiters = [:]
                state.jobs = []
            }
            return (
                Array(state.pendingCalls.values), state.timers.map(\.fire), state.subscriptions.removeAll(),
                Array(state.closeWaiters.values), state.jobs
            )
        }
        // Whatever still prefers this executor runs on the global one from now on.
        for job in leftover { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
        for call in calls { call.reply(.failure(DBusError.disconnected("the connection was closed"))) }
        for fire in timers { fire() }
        for subscriber in subscribers { subscriber.finish() }
        for waiter in waiters { waiter.resume() }
    }

    // MARK: - The connection as a task executor

    /// Runs the jobs enqueued so far, and those they enqueue, on the owner thread. Returns
    /// whether it ran any.
    @discardableResult
    func runJobs() -> Bool {
        var ranAny = false
        while true {
            let batch = state.withLock { state in
                defer { state.jobs = [] }
                return state.jobs
            }
            if batch.isEmpty { return ranAny }
            ranAny = true
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }

    // MARK: - Replies to incoming calls

    func reply(to call: Message, with result: Result<[DBusValue], any Error>) {
        guard !call.noReplyExpected else { return }
        let message: OpaquePointer?
        switch result {
        case .success(let values):
            do {
                message = try OutgoingMessage.methodReturn(to: call, body: values)
            } catch {
                message = OutgoingMessage.error(to: call, .failed("the reply could not be built: \(error.message)"))
            }
        case .failure(let error as DBusError):
            message = OutgoingMessage.error(to: call, error)
        case .failure(let error):
            message = OutgoingMessage.error(to: call, .failed(String(describing: error)))
        }
        if let message { _ = try? send(message) }
    }
}

/// A task that prefers this connection as its executor (`withTaskExecutorPreference`) runs on
/// the connection's owner thread: a reply or signal then resumes it there directly, without a
/// hop to the cooperative pool, and before the next incoming message is routed. Such code
/// must not block, like a synchronous method handler.
extension Connection: TaskExecutor {
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let (accepted, wake) = state.withLock { state in
            guard state.isOpen else { return (false, false) }
            state.jobs.append(job)
            let onOwnerThread = state.ownerThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
            return (true, !onOwnerThread)
        }
        if wake { wakeOwner() }
        if !accepted { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }
}

/// libdbus's connection, kept in `Connection.State`.
/// Unchecked: the pointer is only used with that state locked.
struct RawConnection: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// libdbus's watches on the connection's socket (one for reading, one for writing while
/// something is queued), so that the owner thread's own poll() tells libdbus what the socket
/// is ready for: libdbus then reads or writes without polling again (as
/// `dbus_connection_read_write` would, one more system call per wake-up).
/// Unchecked: libdbus calls the callbacks from within calls made with the connection's state
/// locked, and the owner uses it only with that lock held.
final class SocketWatches: @unchecked Sendable {
    private var watches: [OpaquePointer] = []

    init(on connection: OpaquePointer) {
        let added = dbus_connection_set_watch_functions(
            connection,
            { watch, context in
                Unmanaged<SocketWatches>.fromOpaque(context!).takeUnretainedValue().watches.append(watch!)
                return 1
            },
            { watch, context in
                Unmanaged<SocketWatches>.fromOpaque(context!).takeUnretainedValue().watches.removeAll { $0 == watch }
            },
            nil, Unmanaged.passUnretained(self).toOpaque(), nil)
        precondition(added != 0, "out of memory adding the socket's watches")
    }

    /// The poll() events the enabled watches wait for.
    func events() -> Int16 {
        watches.reduce(0) { events, watch in
            guard dbus_watch_get_enabled(watch) != 0 else { return events }
            let flags = dbus_watch_get_flags(watch)
            return events | (flags & DBUS_WATCH_READABLE.rawValue != 0 ? Int16(POLLIN) : 0)
                | (flags & DBUS_WATCH_WRITABLE.rawValue != 0 ? Int16(POLLOUT) : 0)
        }
    }

    /// Tells each enabled watch what poll() found (reading or writing as much as it can).
    func handle(_ revents: Int16) {
        for watch in watches where dbus_watch_get_enabled(watch) != 0 {
            let flags = dbus_watch_get_flags(watch)
            var condition: UInt32 = 0
            if revents & Int16(POLLIN) != 0, flags & DBUS_WATCH_READABLE.rawValue != 0 {
                condition |= DBUS_WATCH_READABLE.rawValue
            }
            if revents & Int16(POLLOUT) != 0, flags & DBUS_WATCH_WRITABLE.rawValue != 0 {
                condition |= DBUS_WATCH_WRITABLE.rawValue
            }
            if revents & Int16(POLLERR) != 0 { condition |= DBUS_WATCH_ERROR.rawValue }
            if revents & Int16(POLLHUP) != 0 { condition |= DBUS_WATCH_HANGUP.rawValue }
            if condition != 0 { _ = dbus_watch_handle(watch, condition) }
        }
    }
}

/// Lets a cancelled call find its pending entry.
/// Unchecked: its fields are only touched with the connection's state locked.
private final class CallTicket: @unchecked Sendable {
    var serial: UInt32?
    var cancelled = false
}

/// What only the lock holder may do: these take the locked state.
extension Connection.State {
    /// Queues a message and lets libdbus write what it can at once. `unwritten` when part of
    /// it is still unwritten, so the owner must poll for POLLOUT.
    fileprivate func send(_ message: OpaquePointer) throws(DBusError) -> (serial: UInt32, unwritten: Bool) {
        guard isOpen, !closeRequested else { throw .disconnected("the connection is closed") }
        var serial: UInt32 = 0
        guard dbus_connection_send(raw.pointer, message, &serial) != 0 else { throw .noMemory() }
        return (serial, dbus_connection_has_messages_to_send(raw.pointer) != 0)
    }

    /// Takes out the calls and timers whose deadline has passed; what each then runs.
    mutating func removeExpired(now: UInt64) -> [Connection.Expiry] {
        var expired: [Connection.Expiry] = []
        var earliest = UInt64.max
        for (serial, call) in pendingCalls {
            if call.deadline <= now {
                expired.append { call.reply(.failure(DBusError.noReply("no reply within the timeout"))) }
                pendingCalls[serial] = nil
            } else {
                earliest = min(earliest, call.deadline)
            }
        }
        timers.removeAll { timer in
            if timer.deadline <= now {
                expired.append(timer.fire)
                return true
            }
            earliest = min(earliest, timer.deadline)
            return false
        }
        earliestDeadline = earliest
        return expired
    }
}

/// libdbus needs its thread primitives before a connection is shared between threads.
let libdbusThreadsReady: Bool = dbus_threads_init_default() != 0

extension DBusError {
    init(libdbus error: CDBus.DBusError, fallback: String) {
        if let name = error.name {
            self.init(name: String(cString: name), message: error.message.map { String(cString: $0) } ?? fallback)
        } else {
            self.init(name: DBusError.prefix + "Failed", message: fallback)
        }
    }
}
