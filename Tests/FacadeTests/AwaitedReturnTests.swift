import Dispatch
import Testing

@testable import FacadeCore

/// A completion that resumes a caller awaiting it: the host hears the app's code returned after
/// the caller's code that follows its `await`, not while that code runs; of a caller on no actor,
/// at once, told that the code may still run (so that no scan beside it calls a cleanup failed).
@Suite struct AwaitedReturnTests {
    final class Order: @unchecked Sendable {
        var events: [String] = []
    }

    @MainActor @Test func onTheMainActorTheNoticeComesAfterTheCallersCode() async {
        let (awaited, order) = (AwaitedReturn(), Order())
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            awaited.hold { mayStillRun in
                order.events.append("host notified, may still run: \(mayStillRun)")
                continuation.resume()
            }
            // The caller resumed: the awaiting form releases, and the caller's code goes on.
            awaited.release()
            order.events.append("the caller's cleanup")
        }
        #expect(order.events == ["the caller's cleanup", "host notified, may still run: false"])
    }

    @Test func aCallerOnNoActorIsNotedAtOnceAsMaybeStillRunning() async {
        let (awaited, order) = (AwaitedReturn(), Order())
        awaited.hold { mayStillRun in order.events.append("host notified, may still run: \(mayStillRun)") }
        await Self.releaseOffAnyActor(awaited)
        order.events.append("the caller's cleanup")
        #expect(order.events == ["host notified, may still run: true", "the caller's cleanup"])
    }

    @Test func aReleaseBeforeTheCompletionHeldItLetsTheNoticeThrough() async {
        let (awaited, order) = (AwaitedReturn(), Order())
        await Self.releaseOffAnyActor(awaited)
        awaited.hold { mayStillRun in order.events.append("host notified, may still run: \(mayStillRun)") }
        #expect(order.events == ["host notified, may still run: true"])
    }

    @concurrent static func releaseOffAnyActor(_ awaited: AwaitedReturn) async { awaited.release() }
}
