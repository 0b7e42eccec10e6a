import CSystem
import FoundationEssentials

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
    precondition(result == 0, "pthread_create failed: \(result)")
    pthread_detach(thread)
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
