import Dispatch
import Testing

@testable import FacadeCore

/// A completion that resumes a caller awaiting it: the host hears the app's code returned after
/// the caller's code that follows its `await`, not while that code runs.
@MainActor @Suite struct AwaitedReturnTests {
    final class Order: @unchecked Sendable {
        var events: [String] = []
    }

    @Test func onTheMainActorTheNoticeComesAfterTheCallersCode() async {
        let (awaited, order) = (AwaitedReturn(), Order())
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            awaited.hold {
                order.events.append("host notified")
                continuation.resume()
            }
            // The caller resumed: the awaiting form releases, and the caller's code goes on.
            awaited.release()
            order.events.append("the caller's cleanup")
        }
        #expect(order.events == ["the caller's cleanup", "host notified"])
    }

    @Test func aReleaseBeforeTheCompletionHeldItLetsTheNoticeThrough() async {
        let (awaited, order) = (AwaitedReturn(), Order())
        await Task.detached { awaited.release() }.value
        awaited.hold { order.events.append("host notified") }
        #expect(order.events == ["host notified"])
    }
}
