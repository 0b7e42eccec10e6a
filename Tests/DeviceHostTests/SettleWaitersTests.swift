import Synchronization
import Testing

@testable import DeviceHost

/// Whoever waits for an app to settle is resumed once: at its own bound, or when the app settles.
@Suite struct SettleWaitersTests {
    final class Waiting: Sendable {
        let waiters = Mutex(SettleWaiters())
        let numbers = Mutex<[String: Int]>([:])

        func wait(as name: String) async {
            await withCheckedContinuation { continuation in
                let number = waiters.withLock { $0.add(continuation) }
                numbers.withLock { $0[name] = number }
            }
        }
    }

    @Test func aWaiterTakenAtItsBoundIsNotAmongThoseResumedWhenTheAppSettles() async throws {
        let waiting = Waiting()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await waiting.wait(as: "early") }
            group.addTask { await waiting.wait(as: "late") }
            let deadline = ContinuousClock.now + .seconds(30)
            while waiting.numbers.withLock({ $0.count }) < 2 {
                try #require(ContinuousClock.now < deadline, "both waiters are added")
                await Task.yield()
            }
            let early = try #require(waiting.numbers.withLock { $0["early"] })
            let atBound = try #require(waiting.waiters.withLock { $0.remove(early) })
            atBound.resume()
            let settled = waiting.waiters.withLock { $0.takeAll() }
            #expect(settled.count == 1)
            settled.forEach { $0.resume() }
            #expect(waiting.waiters.withLock { $0.remove(early) } == nil)
            #expect(waiting.waiters.withLock { $0.isEmpty })
            try await group.waitForAll()
        }
    }
}
