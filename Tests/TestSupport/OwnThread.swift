import Dispatch
import Testing

/// Runs each test (each case of a parameterised test) on a thread of its own instead of Swift's
/// shared pool, which has one thread per core. A synchronous test that writes many files, waits
/// for a subprocess or loops for seconds holds a pool thread all that time: on a 2-core machine
/// two of them hold the whole pool, and every asynchronous test waits, among them the in-process
/// hubs that must answer a call within its timeout. With this trait the kernel shares the cores
/// between such tests and the rest, as it does between processes.
///
/// Every suite of synchronous tests that touch files, start processes or run for more than a few
/// milliseconds carries it.
public struct OwnThreadTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withTaskExecutorPreference(ThreadExecutor()) { try await function() }
    }
}

extension Trait where Self == OwnThreadTrait {
    /// See `OwnThreadTrait`.
    public static var ownThread: Self { Self() }
}

/// Runs a task's jobs in order on a serial dispatch queue, whose thread is taken from the
/// overcommitting pool: a new thread whenever every other is busy.
private final class ThreadExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "sdlab.test")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
