import FacadeCore
import Foundation
import SDKClients
import Synchronization

/// `android.content.Intent`, as a receiver gets it: the broker's broadcast carries only its
/// action.
public struct Intent: Sendable, Equatable {
    public let action: String?

    public init(action: String?) { self.action = action }

    public func getAction() -> String? { action }
}

/// `android.content.IntentFilter` for one action.
public struct IntentFilter: Sendable, Equatable {
    public let action: String

    public init(_ action: String) { self.action = action }
}

/// `android.content.BroadcastReceiver`: subclass it and override `onReceive`, which runs on the
/// main thread for every broadcast of an action it was registered for.
open class BroadcastReceiver {
    public init() {}

    open func onReceive(_ context: Context, _ intent: Intent) {}
}

/// `android.content.Context`, for its context-registered receivers: the app's, since the app is
/// this process. A receiver hears the broadcasts sent from its registration on, in order, one
/// `onReceive` each, until it is unregistered (Docs/behaviour.md §5). Outside a device nothing is
/// broadcast, and a registration hears nothing.
public final class Context: Sendable {
    /// The application's context: the device its host installed.
    public static let application = Context { DeviceLink.current }

    /// Where its receivers hear from: found when the first receiver of an action registers.
    private let device: @Sendable () -> DeviceLink?

    private struct Action {
        var receivers: [AppValue<BroadcastReceiver>] = []
        /// The bus's rule for the action, held while a receiver is registered.
        var subscription: PostSubscription?
    }
    private let actions = Mutex<[String: Action]>([:])

    /// A context on `link`'s device rather than the process's (tests run several devices).
    convenience init(link: DeviceLink?) { self.init { link } }

    private init(device: @escaping @Sendable () -> DeviceLink?) { self.device = device }

    /// Registers `receiver` for `filter`'s action; returns once the device will deliver to it.
    /// Returns nil, as Android does for an action that is not sticky.
    @discardableResult
    public func registerReceiver(_ receiver: BroadcastReceiver, _ filter: IntentFilter) -> Intent? {
        let action = filter.action
        let first = actions.withLock { actions in
            defer { actions[action, default: Action()].receivers.append(AppValue(receiver)) }
            return actions[action] == nil
        }
        guard first, let link = device() else { return nil }
        let call = MsalErrors.facade.call(completingOn: .main, in: link)
        let subscription = call.wait {
            try? await ReceivedPost.observe(action, on: link.connection) { [self] post in
                // Android holds a cached app's broadcasts until it leaves the cached state.
                let now = link.cached.arrive(action) {
                    link.listener.heardPost(action, sender: post.sender, serial: post.serial)
                    DispatchQueue.main.async { self.deliver(action, link: link) }
                }
                if !now { link.listener.heldPost(action, sender: post.sender, serial: post.serial) }
            }
        }
        let kept = actions.withLock { actions in
            guard actions[action] != nil, let subscription = subscription ?? nil else { return false }
            actions[action]?.subscription = subscription
            return true
        }
        if !kept { (subscription ?? nil)?.cancel() }
        return nil
    }

    /// Unregisters `receiver` from every action; an action none listens to any more is no longer
    /// heard.
    public func unregisterReceiver(_ receiver: BroadcastReceiver) {
        let dropped = actions.withLock { actions in
            var dropped: [PostSubscription] = []
            for (action, var entry) in actions {
                entry.receivers.removeAll { $0.value === receiver }
                if entry.receivers.isEmpty {
                    actions[action] = nil
                    if let subscription = entry.subscription { dropped.append(subscription) }
                } else {
                    actions[action] = entry
                }
            }
            return dropped
        }
        for subscription in dropped { subscription.cancel() }
    }

    /// On the main thread: one `onReceive` for each receiver of `action` registered now.
    private func deliver(_ action: String, link: DeviceLink) {
        let receivers = actions.withLock { $0[action]?.receivers ?? [] }
        guard !receivers.isEmpty else { return }
        for receiver in receivers { receiver.value.onReceive(self, Intent(action: action)) }
        link.listener.appCodeReturned()
    }
}
