import DBusKit
import DeviceContract
import Synchronization

/// Items handed over from other threads, taken in the order they came, with a wait for the
/// next one that a cancellation ends (so that it can race a timer).
final class Mailbox<Item: Sendable>: Sendable {
    private struct State {
        var items: [Item] = []
        var waiter: (id: UInt64, continuation: CheckedContinuation<Void, Never>)?
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())
    /// Past this many items not taken, the oldest go.
    private let most: Int

    init(most: Int = .max) { self.most = most }

    func post(_ item: Item) {
        let waiter = state.withLock { state in
            if state.items.count >= most { state.items.removeFirst(state.items.count - most + 1) }
            state.items.append(item)
            defer { state.waiter = nil }
            return state.waiter?.continuation
        }
        waiter?.resume()
    }

    /// The items posted since the last call, oldest first.
    func take() -> [Item] {
        state.withLock { state in
            defer { state.items = [] }
            return state.items
        }
    }

    /// Returns once an item waits to be taken, or the waiting task is cancelled. One waiter at
    /// a time: a new one releases the previous.
    func next() async {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let (now, released) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
                    guard state.items.isEmpty, !Task.isCancelled else { return (true, nil) }
                    defer { state.waiter = (id, continuation) }
                    return (false, state.waiter?.continuation)
                }
                released?.resume()
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let waiter = state.waiter, waiter.id == id else { return nil }
                state.waiter = nil
                return waiter.continuation
            }
            waiter?.resume()
        }
    }
}

/// What an app said of its background tasks (`dev.sdlab.App1.BackgroundTasks(open)`, sent
/// whenever the number it has open changes), with when the runner heard it. The signal handler
/// runs on the connection's thread, which also hands the runner the replies: a signal an app
/// sent before it answered a call is posted before that answer arrives.
struct BackgroundTaskReport: Sendable, Equatable {
    /// The unique bus name of the process that said it.
    var sender: String
    var open: Int
    /// When it was heard, on the trace's clock.
    var at: Duration

    /// At most this many reports wait to be taken: anyone on the bus may send the signal, and
    /// the runner takes them before every step.
    static let most = 10_000

    /// Posts every app's reports heard on `connection` to `mailbox`.
    static func listen(on connection: Connection, into mailbox: Mailbox<BackgroundTaskReport>) async throws
        -> SignalSubscription
    {
        try await connection.onSignal(matching: AppBus.backgroundTasksRule) { message in
            guard let sender = message.sender, let open = message.body.first?.uint32 else { return }
            mailbox.post(BackgroundTaskReport(sender: sender, open: Int(open), at: .nanoseconds(Int64(TraceLog.now()))))
        }
    }
}
