import DBusKit
import DeviceContract
import Dispatch
import FacadeCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// notify(3) in one process, over the device's bus: its tokens, their deliveries, and the
/// per-name state on the hub. `notify` (the C API) and the Darwin notify center are built on it;
/// the rules it follows are listed in `notify`'s documentation.
///
/// Every registration of a name shares one bus subscription, removed with the name's last
/// token; while it lasts the process holds the name at the hub (`Register`, then `Cancel`), so
/// the name's state lives as long as some process holds it (Docs/behaviour.md §3). A post
/// reaching the process costs the connection's thread one dictionary lookup, and for each
/// token a flag or a queue hop.
///
/// The calls that need the bus or the hub (registering, reading or setting a state) block the
/// calling thread until the bus has answered, at most `timeout`. They are made from the main
/// thread or the app's queues, as on iOS; from the connection's own thread, which the answer
/// needs, they fail (`failed`) rather than wait for ever.
public final class NotifyClient: Sendable {
    public let connection: Connection
    public let hub: HubAddress
    /// How long a call waits for the bus or the hub before it fails.
    public let timeout: Duration
    private let listener: (any DeviceListener)?
    private let registry = Mutex(Registry())

    /// The signals `registerSignal` raises: Linux's 1 to 64.
    public static let signalNumbers: ClosedRange<Int32> = 1...64

    public init(connection: Connection, hub: HubAddress, timeout: Duration, listener: (any DeviceListener)? = nil) {
        self.connection = connection
        self.hub = hub
        self.timeout = timeout
        self.listener = listener
    }

    // MARK: - The process's client

    private static let processClient = Mutex<NotifyClient?>(nil)

    /// This process's client, built at first use from the installed device link (and again if
    /// another link is installed); nil while no link is installed.
    public static var shared: NotifyClient? {
        guard let link = DeviceLink.current else { return nil }
        return processClient.withLock { client in
            if let client, client.connection === link.connection, client.hub === link.hub { return client }
            let made = NotifyClient(
                connection: link.connection, hub: link.hub, timeout: link.hubTimeout, listener: link.listener)
            client = made
            return made
        }
    }

    // MARK: - Posting

    /// `notify_post`: a signal on the bus, or for a process-local name a delivery in this process
    /// (which the listener does not hear of: nothing reached the process from the device).
    public func post(_ name: String) throws(NotifyFailure) {
        try NotifyName.check(name)
        guard !NotifyName.isProcessLocal(name) else { return deliverPost(named: name) }
        do {
            try connection.post(name)
        } catch {
            throw .failed
        }
        // notify(3): a check right after the process's own post sees it, without waiting for the
        // post to come back from the bus; when it comes back it is delivered, not counted again.
        registry.withLock { registry in
            for registration in registry.watches[name]?.registrations ?? [] { registration.postedSinceCheck = true }
        }
    }

    // MARK: - Registering

    /// `notify_register_check`: a token the app polls with `check`.
    public func registerCheck(_ name: String) throws(NotifyFailure) -> Int32 {
        try register(name, .check)
    }

    /// `notify_register_dispatch`: `handler` runs on `queue` with the token after posts.
    public func registerDispatch(_ name: String, queue: DispatchQueue, handler: @escaping (Int32) -> Void)
        throws(NotifyFailure) -> Int32
    {
        try register(name, .dispatch(queue, AppHandler(run: handler)))
    }

    /// `notify_register_signal`: each delivery raises `signal` in this process.
    public func registerSignal(_ name: String, signal: Int32) throws(NotifyFailure) -> Int32 {
        guard Self.signalNumbers.contains(signal) else { throw .invalidSignal }
        return try register(name, .signal(signal))
    }

    /// `notify_register_file_descriptor`: each delivery writes the token to a pipe whose read end
    /// is returned; with `reusing`, a read end returned earlier (and still open), whose pipe the
    /// token shares.
    public func registerFileDescriptor(_ name: String, reusing descriptor: Int32? = nil)
        throws(NotifyFailure) -> (token: Int32, descriptor: Int32)
    {
        try NotifyName.check(name)
        let pipe = try reservePipe(reusing: descriptor)
        do {
            return (try register(name, .file(pipe)), pipe.readEnd)
        } catch {
            releasePipe(pipe)
            throw error
        }
    }

    private func register(_ name: String, _ delivery: Delivery) throws(NotifyFailure) -> Int32 {
        try NotifyName.check(name)
        let isLocal = NotifyName.isProcessLocal(name)
        if !isLocal { try refuseOnConnectionThread() }
        let (registration, installation) = try registry.withLock { registry throws(NotifyFailure) in
            let token = try registry.takeToken()
            let watch = registry.watches[name] ?? startWatching(name, isLocal: isLocal, in: &registry)
            let registration = Registration(token: token, watch: watch, delivery: delivery)
            watch.registrations.append(registration)
            registry.registrations[registration.token] = registration
            return (registration, watch.installation)
        }
        guard let installation else { return registration.token }
        // Returns only once the bus has the rule, so no post sent afterwards is missed.
        guard waitBlocking({ (try? await installation.value) != nil }) == true else {
            remove(registration.token)
            throw .failed
        }
        return registration.token
    }

    /// A new watch of `name`, recorded; for a name on the bus, the process holds it at the hub
    /// and its rule's installation starts.
    private func startWatching(_ name: String, isLocal: Bool, in registry: inout Registry) -> NameWatch {
        let watch = NameWatch(name: name)
        registry.watches[name] = watch
        guard !isLocal else { return watch }
        tellHub(.register, name)
        watch.installation = Task(executorPreference: connection) { [weak self, connection] in
            do {
                let subscription = try await connection.onSignal(matching: DeviceBus.posts(of: name)) {
                    [weak self] message in self?.received(message, by: watch)
                }
                guard let self else { return subscription.cancel() }
                adopt(subscription, by: watch)
            } catch {
                self?.abandon(watch)
                throw error
            }
        }
        return watch
    }

    /// Keeps the subscription while the watch has registrations; a watch emptied meanwhile drops it.
    private func adopt(_ subscription: SignalSubscription, by watch: NameWatch) {
        let kept = registry.withLock { registry in
            guard registry.watches[watch.name] === watch, !watch.registrations.isEmpty else { return false }
            watch.subscription = subscription
            return true
        }
        if !kept { subscription.cancel() }
    }

    /// The rule could not be installed: the next registration of the name tries again.
    private func abandon(_ watch: NameWatch) {
        registry.withLock { registry in
            if registry.watches[watch.name] === watch { registry.watches[watch.name] = nil }
        }
    }

    // MARK: - Tokens

    /// `notify_check`: true at the first call for the token, then whether a post came since the
    /// previous call.
    public func check(_ token: Int32) throws(NotifyFailure) -> Bool {
        try registry.withLock { registry throws(NotifyFailure) in
            let registration = try registry.registration(token)
            defer { registration.postedSinceCheck = false }
            return registration.postedSinceCheck
        }
    }

    /// `notify_suspend`: nothing is delivered to the token until as many `resume` calls.
    public func suspend(_ token: Int32) throws(NotifyFailure) {
        try registry.withLock { registry throws(NotifyFailure) in
            try registry.registration(token).suspensions += 1
        }
    }

    /// `notify_resume`: at the last one, posts that came while suspended make one delivery.
    public func resume(_ token: Int32) throws(NotifyFailure) {
        let raise = try registry.withLock { registry throws(NotifyFailure) in
            let registration = try registry.registration(token)
            guard registration.suspensions > 0 else { return nil as Registration? }
            registration.suspensions -= 1
            guard registration.suspensions == 0, registration.heldPost else { return nil }
            registration.heldPost = false
            return deliver(to: registration) ? registration : nil
        }
        if let raise { raiseSignal(of: raise) }
    }

    /// `notify_cancel`: the token gets nothing more, not even a delivery already queued.
    public func cancel(_ token: Int32) throws(NotifyFailure) {
        guard remove(token) else { throw .invalidToken }
    }

    /// `notify_is_valid_token`.
    public func isValid(_ token: Int32) -> Bool {
        registry.withLock { $0.registrations[token] != nil }
    }

    /// Removes a registration, its name's subscription and hold with its last one, and its pipe
    /// with the pipe's last one; false when the token is not registered.
    @discardableResult
    private func remove(_ token: Int32) -> Bool {
        let removed = registry.withLock { registry in
            let removed = registry.remove(token)
            if let removed, removed.emptied, !NotifyName.isProcessLocal(removed.registration.name) {
                tellHub(.cancel, removed.registration.name)
            }
            return removed
        }
        guard let removed else { return false }
        removed.subscription?.cancel()
        if case .file(let pipe) = removed.registration.delivery { releasePipe(pipe) }
        return true
    }

    // MARK: - State

    /// `notify_get_state`: the name's 64-bit state, 0 until set.
    public func state(of token: Int32) throws(NotifyFailure) -> UInt64 {
        let name = try registeredName(of: token)
        guard !NotifyName.isProcessLocal(name) else { return registry.withLock { $0.localStates[name] ?? 0 } }
        try refuseOnConnectionThread()
        let reply = waitBlocking { [connection, hub, timeout] in
            try? await connection.callHub(NotifyMethod.getState, [.string(name)], at: hub, timeout: timeout)
        }
        guard let value = reply??.first?.uint64 else { throw .failed }
        return value
    }

    /// `notify_set_state`: sets the name's state for every token and process; posts nothing.
    public func setState(_ state: UInt64, of token: Int32) throws(NotifyFailure) {
        let name = try registeredName(of: token)
        guard !NotifyName.isProcessLocal(name) else { return registry.withLock { $0.localStates[name] = state } }
        try refuseOnConnectionThread()
        let done = waitBlocking { [connection, hub, timeout] in
            (try? await connection.callHub(
                NotifyMethod.setState, [.string(name), .uint64(state)], at: hub, timeout: timeout)) != nil
        }
        guard done == true else { throw .failed }
    }

    private func registeredName(of token: Int32) throws(NotifyFailure) -> String {
        try registry.withLock { registry throws(NotifyFailure) in try registry.registration(token).name }
    }

    // MARK: - Delivering

    /// A post that reached this process on the bus (on the connection's thread).
    private func received(_ message: Message, by watch: NameWatch) {
        guard DeviceBus.isPost(message, of: watch.name) else { return }
        listener?.heardPost(watch.name, sender: message.sender ?? "", serial: message.serial)
        // This process's own post was counted for `check` as it was sent (`post`).
        deliverPost(named: watch.name, by: watch, counted: message.sender == connection.uniqueName)
    }

    /// Gives a post to every registration of the name (only while `watch`, when given, is the
    /// name's current one: a subscription being dropped delivers nothing); `counted`: `check`
    /// already answers it.
    private func deliverPost(named name: String, by watch: NameWatch? = nil, counted: Bool = false) {
        let raises = registry.withLock { registry -> [Registration] in
            guard let current = registry.watches[name], watch == nil || current === watch else { return [] }
            var raises: [Registration] = []
            for registration in current.registrations where notice(registration, counted: counted) {
                raises.append(registration)
            }
            return raises
        }
        for registration in raises { raiseSignal(of: registration) }
    }

    /// With the lock held: records a post for the registration (unless `counted`) and delivers
    /// it unless suspended. True when a signal is to be raised once the lock is released.
    private func notice(_ registration: Registration, counted: Bool) -> Bool {
        if !counted { registration.postedSinceCheck = true }
        guard registration.suspensions == 0 else {
            registration.heldPost = true
            return false
        }
        return deliver(to: registration)
    }

    /// With the lock held: queues the handler (unless a delivery is already waiting) or writes
    /// to the pipe. True for a signal, raised after the lock since its handler may run at once.
    private func deliver(to registration: Registration) -> Bool {
        switch registration.delivery {
        case .check:
            return false
        case .dispatch(let queue, _):
            guard !registration.deliveryQueued else { return false }
            registration.deliveryQueued = true
            queue.async { self.runHandler(of: registration) }
            return false
        case .file(let pipe):
            pipe.write(registration.token)
            return false
        case .signal:
            return true
        }
    }

    private func raiseSignal(of registration: Registration) {
        if case .signal(let number) = registration.delivery { kill(getpid(), number) }
    }

    /// On the app's queue: runs the handler unless the token was cancelled or suspended since.
    private func runHandler(of registration: Registration) {
        guard case .dispatch(_, let handler) = registration.delivery else { return }
        let runs = registry.withLock { _ in
            // Cleared before the handler runs: a post arriving meanwhile queues the next delivery.
            registration.deliveryQueued = false
            guard !registration.isCancelled else { return false }
            guard registration.suspensions == 0 else {
                registration.heldPost = true
                return false
            }
            return true
        }
        guard runs else { return }
        handler.run(registration.token)
        listener?.appCodeReturned()
    }

    // MARK: - Pipes

    private func reservePipe(reusing descriptor: Int32?) throws(NotifyFailure) -> NotifyPipe {
        guard let descriptor else {
            guard let pipe = NotifyPipe.make() else { throw .failed }
            registry.withLock { registry in
                pipe.users = 1
                registry.pipes[pipe.readEnd] = pipe
            }
            return pipe
        }
        return try registry.withLock { registry throws(NotifyFailure) in
            guard let pipe = registry.pipes[descriptor] else { throw .invalidFile }
            pipe.users += 1
            return pipe
        }
    }

    private func releasePipe(_ pipe: NotifyPipe) {
        registry.withLock { registry in
            pipe.users -= 1
            guard pipe.users == 0 else { return }
            registry.pipes[pipe.readEnd] = nil
            // Under the lock, so that no delivery writes to the descriptor once it may be reused.
            pipe.close()
        }
    }

    // MARK: - Holding names at the hub

    /// Tells the hub that this process holds, or no longer holds, a registration for `name`,
    /// without waiting for its answer: a hub that is down or slow delays no registration (the
    /// name's posts need only the bus). Made with the registry's lock held, so in the order of
    /// the registrations; tasks that prefer the connection start in the order they are made and
    /// send their call before they first wait, so the hub hears of a hold before any state call
    /// the app makes once its registration returned, and of its end after it.
    private func tellHub(_ method: NotifyMethod, _ name: String) {
        Task(executorPreference: connection) { [connection, hub, timeout] in
            _ = try? await connection.callHub(method, [.string(name)], at: hub, timeout: timeout)
        }
    }

    // MARK: - Blocking the caller

    /// Runs `work` as a task on the connection's thread, which it only awaits on, and blocks the
    /// calling thread until it ends; nil when `timeout` passed first (the task is cancelled).
    /// On a thread that serves the connection (an app's main thread), it serves it meanwhile.
    private func waitBlocking<Value: Sendable>(_ work: @escaping @Sendable () async -> Value) -> Value? {
        let answer = Answer<Value>()
        let task = Task(executorPreference: connection) {
            answer.give(await work())
        }
        let answered =
            connection.isServedByCurrentThread
            ? connection.serve(until: { answer.value != nil }, timeout: timeout) : answer.wait(timeout: timeout)
        guard answered else {
            task.cancel()
            return nil
        }
        return answer.value
    }

    /// A blocking call on the connection's thread would wait for the answer that thread must
    /// read, unless that thread serves the connection while it waits.
    private func refuseOnConnectionThread() throws(NotifyFailure) {
        if connection.isOwnerThread, !connection.isServedByCurrentThread { throw .failed }
    }
}

/// The tokens of one client, its names, process-local states and pipes.
private struct Registry {
    /// Libnotify's first token is 1 too: an app's `var token: Int32 = 0` names no registration.
    var nextToken: Int32 = 1
    var registrations: [Int32: Registration] = [:]
    var watches: [String: NameWatch] = [:]
    /// The states of process-local names.
    var localStates: [String: UInt64] = [:]
    /// By read end.
    var pipes: [Int32: NotifyPipe] = [:]

    mutating func takeToken() throws(NotifyFailure) -> Int32 {
        guard nextToken < Int32.max else { throw .failed }
        defer { nextToken += 1 }
        return nextToken
    }

    func registration(_ token: Int32) throws(NotifyFailure) -> Registration {
        guard let registration = registrations[token] else { throw .invalidToken }
        return registration
    }

    /// Removes a registration; with its watch's last one (`emptied`), the watch, whose
    /// subscription is returned to be cancelled after the lock. A watch empties once: no
    /// registration joins it once it is no longer its name's current one.
    mutating func remove(_ token: Int32) -> (
        registration: Registration, subscription: SignalSubscription?, emptied: Bool
    )? {
        guard let registration = registrations.removeValue(forKey: token) else { return nil }
        registration.isCancelled = true
        let watch = registration.watch
        watch.registrations.removeAll { $0 === registration }
        guard watch.registrations.isEmpty else { return (registration, nil, false) }
        if watches[watch.name] === watch { watches[watch.name] = nil }
        defer { watch.subscription = nil }
        return (registration, watch.subscription, true)
    }
}

/// A value handed from a task to a thread blocked waiting for it.
private final class Answer<Value: Sendable>: Sendable {
    private let stored = Mutex<Value?>(nil)
    private let ready = DispatchSemaphore(value: 0)

    func give(_ value: Value) {
        stored.withLock { $0 = value }
        ready.signal()
    }

    /// Whether the value came within `timeout`.
    func wait(timeout: Duration) -> Bool {
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        return ready.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success
    }

    var value: Value? { stored.withLock { $0 } }
}
