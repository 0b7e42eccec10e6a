import DBusKit
import Dispatch

/// An app's handler. Unchecked: the engine only calls it on the queue the app registered it
/// with, as notify(3) does, so it never runs anywhere the app did not ask for.
struct AppHandler: @unchecked Sendable {
    let run: (Int32) -> Void
}

/// How a registration hears of a post.
enum Delivery: Sendable {
    /// Nothing is delivered: the app asks with `notify_check`.
    case check
    /// The handler runs on the queue with the token.
    case dispatch(DispatchQueue, AppHandler)
    /// The signal is raised in this process.
    case signal(Int32)
    /// The token is written to the pipe.
    case file(NotifyPipe)
}

/// One token. Unchecked: its mutable fields are only touched with the client's lock held.
final class Registration: @unchecked Sendable {
    let token: Int32
    let watch: NameWatch
    let delivery: Delivery
    /// `notify_check`'s next answer: true at first, then whether a post came since the last check.
    var postedSinceCheck = true
    /// `notify_suspend` calls not yet resumed.
    var suspensions = 0
    /// A post came while suspended; it is delivered once, at the last resume.
    var heldPost = false
    /// A dispatch delivery is queued and has not started: later posts join it.
    var deliveryQueued = false
    var isCancelled = false

    init(token: Int32, watch: NameWatch, delivery: Delivery) {
        self.token = token
        self.watch = watch
        self.delivery = delivery
    }

    var name: String { watch.name }
}

/// The registrations of one name and the bus subscription they share. Unchecked: its mutable
/// fields are only touched with the client's lock held.
final class NameWatch: @unchecked Sendable {
    let name: String
    /// In registration order, which is the order each post reaches them.
    var registrations: [Registration] = []
    /// The subscription, once the bus installed its rule; never for process-local names.
    var subscription: SignalSubscription?
    /// The rule's installation, which every registration of the name waits for.
    var installation: Task<Void, any Error>?

    init(name: String) { self.name = name }
}
