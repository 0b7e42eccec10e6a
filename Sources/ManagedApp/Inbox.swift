import DeviceContract
import Synchronization

/// The app's work, one piece at a time. Check requests coalesce: any number made before a
/// check starts are served by that one check (so a hundred posts that queued up while the
/// app was stopped cause one check). Other work runs in the order it was submitted, after
/// any pending check.
final class Inbox: Sendable {
    enum Work {
        case check([CheckTrigger])
        case job(@Sendable () async -> Void)
    }

    private struct State {
        var triggers: [CheckTrigger] = []
        /// Requesters waiting for the check that will serve them.
        var checkWaiters: [CheckedContinuation<Void, Never>] = []
        var jobs: [@Sendable () async -> Void] = []
        var worker: CheckedContinuation<Void, Never>?
        var busy = false
        var idleWaiters: [CheckedContinuation<Void, Never>] = []

        var hasWork: Bool { !triggers.isEmpty || !jobs.isEmpty }

        mutating func request(_ trigger: CheckTrigger) {
            if !triggers.contains(trigger) { triggers.append(trigger) }
            wakeWorker()
        }

        mutating func wakeWorker() {
            worker?.resume()
            worker = nil
        }
    }

    private let state = Mutex(State())

    /// Asks for a check without waiting (a post, a resume).
    func requestCheck(_ trigger: CheckTrigger) {
        state.withLock { $0.request(trigger) }
    }

    /// Asks for a check and returns once a check that started after the request has finished.
    func check(_ trigger: CheckTrigger) async {
        await withCheckedContinuation { continuation in
            state.withLock { state in
                state.checkWaiters.append(continuation)
                state.request(trigger)
            }
        }
    }

    /// Runs `body` in turn and returns its result.
    func perform<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            state.withLock { state in
                state.jobs.append { continuation.resume(with: await Result(catching: body)) }
                state.wakeWorker()
            }
        }
    }

    /// The worker's next piece of work; a check first. The triggers stay pending until
    /// `takeTriggers`, so requests made until then join this check.
    func next() async -> Work {
        while true {
            let work: Work? = state.withLock { state in
                if !state.triggers.isEmpty {
                    state.busy = true
                    return .check(state.triggers)
                }
                if !state.jobs.isEmpty {
                    state.busy = true
                    return .job(state.jobs.removeFirst())
                }
                state.busy = false
                for waiter in state.idleWaiters { waiter.resume() }
                state.idleWaiters = []
                return nil
            }
            if let work { return work }
            await withCheckedContinuation { continuation in
                state.withLock { state in
                    if state.hasWork { continuation.resume() } else { state.worker = continuation }
                }
            }
        }
    }

    /// The triggers of the requests not yet served.
    func pendingTriggers() -> [CheckTrigger] { state.withLock { $0.triggers } }

    /// Takes the pending triggers and their waiters: from now on a request needs another check.
    func takeTriggers() -> (triggers: [CheckTrigger], waiters: [CheckedContinuation<Void, Never>]) {
        state.withLock { state in
            defer {
                state.triggers = []
                state.checkWaiters = []
            }
            return (state.triggers, state.checkWaiters)
        }
    }

    /// Returns once nothing is pending and nothing runs: no check requested, no job queued.
    func settled() async {
        await withCheckedContinuation { continuation in
            state.withLock { state in
                if state.busy || state.hasWork { state.idleWaiters.append(continuation) } else { continuation.resume() }
            }
        }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
