import Combine
import Foundation
import Testing

/// Combine as shared-device code uses it: a model's `objectWillChange` and `$published`
/// values, subjects, `Future`, and the notification center's publisher received on a queue.
@Suite struct CombineTests {
    @Test func aModelTellsItsChangesBeforeTheyHappen() {
        let state = AccountState()
        var told: [String?] = []
        var cancellables = Set<AnyCancellable>()
        state.objectWillChange.sink { _ in told.append(state.username) }.store(in: &cancellables)
        var seen: [String?] = []
        state.$username.sink { seen.append($0) }.store(in: &cancellables)
        state.signIn(as: "cou1")
        state.signOut()
        #expect(seen == [nil, "cou1", nil])
        // Told before each change: the values as they were.
        #expect(told == [nil, "cou1", "cou1", nil])
    }

    @Test func subjectsAndFuturesDeliverWhatIsSent() throws {
        let subject = PassthroughSubject<(user: String, generation: Int), Never>()
        var received: [String] = []
        let cancellable = subject.map { "\($0.user)@\($0.generation)" }.sink { received.append($0) }
        subject.send((user: "cou1", generation: 2))
        cancellable.cancel()
        subject.send((user: "cou2", generation: 3))
        #expect(received == ["cou1@2"])
        var result: Result<Int, Error>?
        _ = Future<Int, Error> { promise in promise(.success(7)) }
            .sink(receiveCompletion: { _ in }, receiveValue: { result = .success($0) })
        #expect(try result?.get() == 7)
    }

    /// `receive(on:)` hands each notification to the queue: it is not delivered on the thread
    /// that posted it.
    @Test func theNotificationCenterPublishesOnTheQueueAsked() async throws {
        let name = Notification.Name("dev.sdlab.test.willEnterForeground")
        let heard = AsyncStream<pthread_t>.makeStream()
        let cancellable = NotificationCenter.default.publisher(for: name)
            .receive(on: DispatchQueue.main)
            .sink { _ in heard.continuation.yield(pthread_self()) }
        defer { cancellable.cancel() }
        let poster = pthread_self()
        NotificationCenter.default.post(name: name, object: nil)
        var iterator = heard.stream.makeAsyncIterator()
        let deliverer = try #require(await iterator.next())
        #expect(pthread_equal(deliverer, poster) == 0, "delivered on the queue, not inside post")
    }
}
