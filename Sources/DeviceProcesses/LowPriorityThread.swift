import CSystem
import Dispatch
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Runs blocking work (waiting for a process, reading a pipe) on a thread of its own, so the
/// Swift cooperative pool never blocks.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        detachThread { continuation.resume(returning: body()) }
    }
}

/// Runs `body` on a new thread that nobody joins.
public func detachThread(_ body: @escaping @Sendable () -> Void) {
    let result = startThread(body)
    precondition(result == 0, "pthread_create failed: \(result)")
}

/// Starts a thread that nobody joins running `body`; pthread_create's result.
private func startThread(_ body: @escaping @Sendable () -> Void) -> Int32 {
    final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
    let context = Unmanaged.passRetained(Body(body)).toOpaque()
    var thread = pthread_t()
    let result = pthread_create(
        &thread, nil,
        { context in
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
    guard result == 0 else {
        Unmanaged<Body>.fromOpaque(context).release()
        return result
    }
    pthread_detach(thread)
    return 0
}

/// A thread of its own at a low CPU priority (nice 10), for the host's work that must not take
/// the CPU from the apps a run measures: where the cores are contended, the kernel gives it
/// about a tenth of what a normal thread gets, so it yields to them, yet is not starved on a
/// machine that stays busy (at nice 19 it would get about one seventieth). Started on first
/// use; where no thread can be started (the app used them up), the work runs on the caller's
/// thread instead.
public final class LowPriorityThread: Sendable {
    /// The thread's nice value.
    public static let nice: Int32 = 10

    private enum Start { case notYet, running, failed }
    private let start = Mutex(Start.notYet)
    private let waiting = Mutex<[@Sendable () -> Void]>([])
    private let wake = DispatchSemaphore(value: 0)

    public init() {}

    /// Runs `body` there and waits for it, the caller blocked (taking no CPU) meanwhile.
    public func run<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        guard started() else { return body() }
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        waiting.withLock {
            $0.append {
                result.withLock { $0 = body() }
                done.signal()
            }
        }
        wake.signal()
        done.wait()
        return result.withLock { $0! }
    }

    private func started() -> Bool {
        start.withLock { start in
            if start == .notYet {
                start = startThread(serve) == 0 ? .running : .failed
            }
            return start == .running
        }
    }

    /// The thread's life: it keeps the object, as it never ends.
    private func serve() {
        // On Linux the nice value is the calling thread's alone.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.nice)
        while true {
            wake.wait()
            waiting.withLock { $0.removeFirst() }()
        }
    }
}

/// The result of whichever of `racers` finishes first. The others are cancelled and not
/// waited for: a racer blocked off the pool (waiting for a process) ends when its process does.
/// The racers run on `executor` when given (racers that only wait need no worker thread).
public func firstOf<T: Sendable>(
    _ racers: [@Sendable () async -> T], on executor: (any TaskExecutor)? = nil
) async -> T {
    let (stream, continuation) = AsyncStream<T>.makeStream()
    let tasks = racers.map { racer in Task(executorPreference: executor) { continuation.yield(await racer()) } }
    defer { tasks.forEach { $0.cancel() } }
    for await first in stream { return first }
    preconditionFailure("the race stream never finishes")
}
