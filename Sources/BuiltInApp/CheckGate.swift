import SharedDevice

/// The built-in app's account checks, one at a time (Docs/behaviour.md §4): a request made
/// while a check waits for its SDK's answer joins it, so a hundred posts that queued up while
/// the app was stopped cause one check; a request made once the answer is in (while the app
/// acts on it) leaves one more check to make when it is done. Used on the main queue only.
@MainActor
final class CheckGate {
    private enum Phase {
        case idle
        /// Waiting for the SDK's answer.
        case asking
        /// Acting on the answer (cleaning up).
        case acting
    }

    private var phase = Phase.idle
    /// A request made while acting or held: the check to make next.
    private var next: CheckTrigger?
    /// Work in hand that checks wait for (the app's own sign-in or sign-out).
    private var holds = 0
    /// Starts the SDK's check (its answer comes back through `answered`).
    private let ask: (CheckTrigger) -> Void

    init(ask: @escaping (CheckTrigger) -> Void) { self.ask = ask }

    func request(_ trigger: CheckTrigger) {
        switch phase {
        case .idle where holds == 0: start(trigger)
        case .asking: break  // the answer on its way serves this request too
        case .idle, .acting: next = next ?? trigger
        }
    }

    /// Work the next check waits for begins: requests made until `release` are served by one
    /// check after it, as the app serves the runner's requests after its pending checks.
    func hold() { holds += 1 }

    func release() {
        holds -= 1
        if phase == .idle { startNext() }
    }

    /// The SDK answered (or could not): the app acts on it; later requests need another check.
    func answered() { phase = .acting }

    /// The app has acted on the answer: the check a request made meanwhile starts now.
    func acted() {
        phase = .idle
        startNext()
    }

    private func startNext() {
        guard holds == 0, let trigger = next else { return }
        next = nil
        start(trigger)
    }

    private func start(_ trigger: CheckTrigger) {
        phase = .asking
        ask(trigger)
    }
}
