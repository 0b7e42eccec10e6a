import Dispatch
import Synchronization

/// Runs `work` as a task and waits for it on this thread, at most `timeout`: the real SDKs'
/// synchronous calls (`notify_get_state`, `allAccounts()`) answer from a daemon the same way.
/// Never call it on the bus connection's own thread, which the work needs.
public func waitFor<Value: Sendable>(
    timeout: Duration, _ work: @escaping @Sendable () async -> Value
) -> Value? {
    let answer = Mutex<Value?>(nil)
    let done = DispatchSemaphore(value: 0)
    let task = Task {
        let value = await work()
        answer.withLock { $0 = value }
        done.signal()
    }
    let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
    guard done.wait(timeout: .now() + seconds) == .success else {
        task.cancel()
        return nil
    }
    return answer.withLock { $0 }
}

/// A value handed between threads that Swift cannot prove safe to share: the app's own
/// closures and objects, which the facades call back only on the queue the app asked for.
public struct AppValue<Value>: @unchecked Sendable {
    public let value: Value
    public init(_ value: Value) { self.value = value }
}
