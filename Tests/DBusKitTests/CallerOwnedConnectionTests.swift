import DBusKit
import DeviceProcesses
import Foundation
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A connection served by a thread of the caller's (`Owner.callingThread`): replies, signals,
/// incoming calls and the jobs of tasks that prefer it run on that thread, in the order their
/// messages arrive, and a block the caller's loop queues while a message is routed runs before
/// the next message is.
@Suite(.tags(.device), .devicesWanted) struct CallerOwnedConnectionTests {
    @Test(.timeLimit(.minutes(3)))
    func repliesSignalsCallsAndJobsRunOnTheCallersThreadInArrivalOrder() async throws {
        try await withConnections(1) { daemon, connections in
            let peer = connections[0]
            try peer.export([echoInterface("s")], at: testPath)
            let loop = try await CallerLoop.start(on: daemon.address)
            defer { loop.stop() }
            let owner = loop.connection
            try owner.export(
                [
                    DBusInterface(
                        "dev.test.Owned",
                        methods: [
                            .init("Touch", in: [], out: []) { _ in
                                loop.note("call")
                                return []
                            }
                        ])
                ], at: testPath)
            let (heard, heardOne) = AsyncStream<Void>.makeStream()
            let subscription = try await owner.onSignal(matching: MatchRule(interface: testInterface, member: "Posted"))
            {
                loop.note("signal \($0.body.first?.string ?? "?")")
                heardOne.yield()
            }
            defer { subscription.cancel() }

            try peer.emitSignal(path: testPath, interface: testInterface, member: "Posted", [.string("1")])
            try await next(heard)
            _ = try await peer.call(
                destination: owner.uniqueName, path: testPath, interface: "dev.test.Owned", member: "Touch",
                timeout: .seconds(10))
            let reply = try await Task(executorPreference: owner) {
                loop.note("job")
                let values = try await owner.call(
                    destination: peer.uniqueName, path: testPath, interface: testInterface, member: "Echo",
                    [.string("echoed")], timeout: .seconds(10))
                loop.note("reply \(values.first?.string ?? "?")")
                return values
            }.value
            #expect(reply == [.string("echoed")])
            try peer.emitSignal(path: testPath, interface: testInterface, member: "Posted", [.string("2")])
            try await next(heard)

            let notes = loop.notes
            #expect(notes.map(\.text) == ["signal 1", "call", "job", "reply echoed", "signal 2"])
            #expect(notes.allSatisfy { $0.onOwner }, "everything ran on the caller's thread: \(notes)")
        }
    }

    /// The caller's loop drains its own queue after each message: what a signal's receiver
    /// queued there has run before the next signal is routed, however many arrived together.
    @Test(.timeLimit(.minutes(3)))
    func aBlockQueuedWhileRoutingAMessageRunsBeforeTheNextIsRouted() async throws {
        try await withConnections(1) { daemon, connections in
            let peer = connections[0]
            let loop = try await CallerLoop.start(on: daemon.address)
            defer { loop.stop() }
            let count = 20
            let (done, last) = AsyncStream<Void>.makeStream()
            let subscription = try await loop.connection.onSignal(
                matching: MatchRule(interface: testInterface, member: "Posted")
            ) { message in
                let number = message.body.first?.string ?? "?"
                loop.note("signal \(number)")
                loop.enqueue {
                    loop.note("block \(number)")
                    if number == "\(count)" { last.yield() }
                }
            }
            defer { subscription.cancel() }

            // Hold the caller's loop in a block of its queue while every signal is sent, so
            // they reach its socket together.
            let (held, holding) = AsyncStream<Void>.makeStream()
            let release = DispatchSemaphore(value: 0)
            loop.enqueue {
                holding.yield()
                _ = release.wait(timeout: .now() + 10)
            }
            try await next(held)
            for number in 1...count {
                try peer.emitSignal(path: testPath, interface: testInterface, member: "Posted", [.string("\(number)")])
            }
            await peer.flush()
            release.signal()
            try await next(done)

            let expected = (1...count).flatMap { ["signal \($0)", "block \($0)"] }
            #expect(loop.notes.map(\.text) == expected)
        }
    }

    /// A blocking call on the caller's thread serves the connection while it waits, so the
    /// answer it waits for reaches it; on an owner thread of its own's connection nothing does.
    @Test(.timeLimit(.minutes(3)))
    func aBlockingWaitOnTheCallersThreadServesTheConnection() async throws {
        try await withConnections(1) { daemon, connections in
            let peer = connections[0]
            try peer.export([echoInterface("s")], at: testPath)
            let loop = try await CallerLoop.start(on: daemon.address)
            defer { loop.stop() }
            let owner = loop.connection
            let (answered, answer) = AsyncStream<[DBusValue]?>.makeStream()
            loop.enqueue {
                let result = Mutex<[DBusValue]?>(nil)
                Task(executorPreference: owner) {
                    let values = try? await owner.call(
                        destination: peer.uniqueName, path: testPath, interface: testInterface, member: "Echo",
                        [.string("blocked")], timeout: .seconds(10))
                    result.withLock { $0 = values }
                }
                let served = owner.serve(until: { result.withLock { $0 != nil } }, timeout: .seconds(10))
                loop.note("served \(served)")
                answer.yield(result.withLock { $0 })
            }
            let got = try await next(answered)
            #expect(got == [.string("blocked")])
            #expect(loop.notes.map(\.text) == ["served true"])
            #expect(loop.notes.allSatisfy { $0.onOwner })
        }
    }

    /// A call with a reply handler and a timer need no task: each runs on the caller's thread,
    /// the timer no sooner than asked; one scheduled on a closed connection runs at once.
    @Test(.timeLimit(.minutes(3)))
    func aReplyHandlerAndATimerRunOnTheCallersThread() async throws {
        try await withConnections(1) { daemon, connections in
            let peer = connections[0]
            try peer.export([echoInterface("s")], at: testPath)
            let loop = try await CallerLoop.start(on: daemon.address)
            defer { loop.stop() }
            let (done, finish) = AsyncStream<Void>.makeStream()
            let started = ContinuousClock.now
            let elapsed = Mutex<Duration?>(nil)
            loop.connection.call(
                destination: peer.uniqueName, path: testPath, interface: testInterface, member: "Echo",
                [.string("handled")], timeout: .seconds(10)
            ) { outcome in
                loop.note("reply \((try? outcome.get())?.first?.string ?? "?")")
                finish.yield()
            }
            loop.connection.schedule(after: .milliseconds(50)) {
                elapsed.withLock { $0 = ContinuousClock.now - started }
                loop.note("timer")
                finish.yield()
            }
            try await next(done)
            try await next(done)
            #expect(loop.notes.map(\.text).sorted() == ["reply handled", "timer"])
            #expect(loop.notes.allSatisfy { $0.onOwner }, "\(loop.notes)")
            #expect(try #require(elapsed.withLock { $0 }) >= .milliseconds(50))

            await loop.connection.close()
            let ranAtOnce = Mutex(false)
            loop.connection.schedule(after: .seconds(60)) { ranAtOnce.withLock { $0 = true } }
            #expect(ranAtOnce.withLock { $0 })
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func closingFromAnotherThreadEndsTheCallersServing() async throws {
        try await BusDaemon.withTemporary { daemon, _ in
            let loop = try await CallerLoop.start(on: daemon.address)
            defer { loop.stop() }
            #expect(loop.connection.isConnected)
            #expect(!loop.connection.isServedByCurrentThread)
            await loop.connection.close()
            #expect(!loop.connection.isConnected)
            try await next(loop.ended)
        }
    }

    /// Handed off, the connection is served by a thread of its own, and goes on working.
    @Test(.timeLimit(.minutes(3)))
    func aHandedOffConnectionGoesOnWithAThreadOfItsOwn() async throws {
        try await withConnections(1) { daemon, connections in
            let peer = connections[0]
            try peer.export([echoInterface("s")], at: testPath)
            let loop = try await CallerLoop.start(on: daemon.address)
            defer { loop.stop() }
            loop.enqueue { loop.connection.handOffToOwnThread() }
            try await next(loop.ended)
            let reply = try await loop.connection.call(
                destination: peer.uniqueName, path: testPath, interface: testInterface, member: "Echo",
                [.string("after")], timeout: .seconds(10))
            #expect(reply == [.string("after")])
            await loop.connection.close()
        }
    }
}

/// A caller's loop on a thread of the test's: it connects (`Owner.callingThread`), then polls the
/// connection's descriptors and its own queue's eventfd, and serves the connection, draining its
/// queue after each routed message, as an app's main loop drains the main queue.
private final class CallerLoop: @unchecked Sendable {
    struct Note: Sendable, CustomStringConvertible {
        let text: String
        let onOwner: Bool
        var description: String { onOwner ? text : "\(text) (elsewhere)" }
    }

    /// Set by the loop's thread before `start` returns.
    private var opened: Connection?
    var connection: Connection { opened! }
    let ended: AsyncStream<Void>
    private let endedOne: AsyncStream<Void>.Continuation
    private var thread = pthread_t()
    /// The queue's wake-up pipe: a byte per block queued.
    private let wakePipe: [Int32] = {
        var ends: [Int32] = [-1, -1]
        precondition(pipe(&ends) == 0)
        _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
        return ends
    }()
    private var queueFD: Int32 { wakePipe[0] }
    private let queue = Mutex<[@Sendable () -> Void]>([])
    private let recorded = Mutex<[Note]>([])
    private let stopping = Atomic<Bool>(false)

    private init() { (ended, endedOne) = AsyncStream<Void>.makeStream() }

    static func start(on address: String) async throws -> CallerLoop {
        let loop = CallerLoop()
        let (started, start) = AsyncStream<Result<Void, any Error>>.makeStream()
        Thread {
            do {
                loop.opened = try Connection.connect(to: address, owner: .callingThread)
                loop.thread = pthread_self()
                start.yield(.success(()))
            } catch {
                start.yield(.failure(error))
                return
            }
            loop.run()
        }.start()
        try await next(started).get()
        return loop
    }

    var notes: [Note] { recorded.withLock { $0 } }

    func note(_ text: String) {
        let onOwner = pthread_equal(thread, pthread_self()) != 0
        recorded.withLock { $0.append(Note(text: text, onOwner: onOwner)) }
    }

    func enqueue(_ block: @escaping @Sendable () -> Void) {
        queue.withLock { $0.append(block) }
        var one: UInt8 = 1
        _ = write(wakePipe[1], &one, 1)
    }

    func stop() {
        stopping.store(true, ordering: .relaxed)
        enqueue {}
    }

    private func drain() {
        while true {
            let blocks = queue.withLock { queue in
                defer { queue = [] }
                return queue
            }
            if blocks.isEmpty { return }
            for block in blocks { block() }
        }
    }

    private func run() {
        let descriptors = connection.ownerDescriptors
        var fds = [
            pollfd(fd: descriptors.socket, events: Int16(POLLIN), revents: 0),
            pollfd(fd: descriptors.wake, events: Int16(POLLIN), revents: 0),
            pollfd(fd: queueFD, events: Int16(POLLIN), revents: 0),
        ]
        while !stopping.load(ordering: .relaxed) {
            if fds[2].revents != 0 {
                var bytes = [UInt8](repeating: 0, count: 64)
                _ = read(queueFD, &bytes, 64)
                drain()
            }
            // A block may have handed the connection off: then it is served elsewhere.
            guard connection.isServedByCurrentThread else { break }
            let wait = connection.serve(
                socketReadiness: fds[0].revents, wakeReady: fds[1].revents != 0, afterEachMessage: drain)
            if wait.isClosed { break }
            fds[0].events = wait.socketEvents
            for index in fds.indices { fds[index].revents = 0 }
            _ = poll(&fds, nfds_t(fds.count), wait.timeoutMilliseconds)
        }
        endedOne.yield()
        // Blocks queued from now on still run, so that no waiter is left hanging.
        while !stopping.load(ordering: .relaxed) {
            var one = pollfd(fd: queueFD, events: Int16(POLLIN), revents: 0)
            _ = poll(&one, 1, 1000)
            var bytes = [UInt8](repeating: 0, count: 64)
            _ = read(queueFD, &bytes, 64)
            drain()
        }
    }

    deinit { for end in wakePipe { close(end) } }
}
