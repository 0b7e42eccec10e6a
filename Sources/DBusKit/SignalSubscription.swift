import CDBus
import Synchronization

/// A match rule for signals, rendered with values quoted and escaped as the D-Bus
/// specification says (a `'` inside a value becomes `'\''`).
public struct MatchRule: Hashable, Sendable {
    public var sender: String?
    public var path: ObjectPath?
    public var interface: String?
    public var member: String?
    /// `argN` string matches, by argument index (0…63).
    public var arguments: [Int: String]

    public init(
        sender: String? = nil, path: ObjectPath? = nil, interface: String? = nil,
        member: String? = nil, arguments: [Int: String] = [:]
    ) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }

    /// The rule as `AddMatch` takes it.
    public var text: String {
        var parts = ["type='signal'"]
        if let sender { parts.append("sender=" + Self.quoted(sender)) }
        if let path { parts.append("path=" + Self.quoted(path.rawValue)) }
        if let interface { parts.append("interface=" + Self.quoted(interface)) }
        if let member { parts.append("member=" + Self.quoted(member)) }
        for (index, value) in arguments.sorted(by: { $0.key < $1.key }) {
            parts.append("arg\(index)=" + Self.quoted(value))
        }
        return parts.joined(separator: ",")
    }

    static func quoted(_ value: String) -> String {
        "'" + value.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    func validate() throws(DBusError) {
        if let sender, !DBusNames.isValidBusName(sender) { throw .invalidArgs("invalid sender \"\(sender)\"") }
        if let interface, !DBusNames.isValidInterfaceName(interface) {
            throw .invalidArgs("invalid interface \"\(interface)\"")
        }
        if let member, !DBusNames.isValidMemberName(member) { throw .invalidArgs("invalid member \"\(member)\"") }
        if arguments.keys.contains(where: { !(0...63).contains($0) }) { throw .invalidArgs("argN index must be 0…63") }
        if arguments.values.contains(where: { $0.utf8.contains(0) }) {
            throw .invalidArgs("argN value contains a NUL byte")
        }
        if text.utf8.count > 1024 { throw .invalidArgs("match rule longer than 1024 bytes") }
    }

    /// Whether a received signal is one this rule asked for. The bus already filtered, but
    /// one connection receives the union of its rules. A well-known sender name cannot be
    /// compared locally (messages carry the unique name), so only unique names are.
    func matches(_ message: Message) -> Bool {
        if let sender, sender.hasPrefix(":") || sender == "org.freedesktop.DBus", message.sender != sender {
            return false
        }
        if let path, message.path != path { return false }
        if let interface, message.interface != interface { return false }
        if let member, message.member != member { return false }
        for (index, value) in arguments {
            guard index < message.body.count, message.body[index].string == value else { return false }
        }
        return true
    }
}

/// Subscribers and installed match rules of one connection, part of its locked state.
struct SubscriptionRegistry {
    struct Subscriber {
        let rule: MatchRule
        /// Runs on the connection's owner thread, in the order messages arrive.
        let deliver: @Sendable (Message) -> Void
        let finish: @Sendable () -> Void
    }

    private var subscribers: [UInt64: Subscriber] = [:]
    private var nextID: UInt64 = 0
    /// Subscribers per rule; the rule is on the bus while this is above zero.
    private(set) var ruleUsers: [String: Int] = [:]
    /// The `AddMatch` in flight or done for each rule, so later subscribers wait for it too.
    var ruleInstalls: [String: RuleInstall] = [:]

    /// Adds a subscriber; true when it is the rule's first, so the rule must be added.
    mutating func add(_ subscriber: Subscriber) -> (id: UInt64, isFirst: Bool) {
        let rule = subscriber.rule
        nextID += 1
        subscribers[nextID] = subscriber
        ruleUsers[rule.text, default: 0] += 1
        return (nextID, ruleUsers[rule.text] == 1)
    }

    /// Removes a subscriber; `wasLast` when it was the rule's last, so the rule must be removed.
    /// The subscriber is returned to be released after the lock: its handler's captures may
    /// use the connection when they go.
    mutating func remove(_ id: UInt64) -> (subscriber: Subscriber, wasLast: Bool)? {
        guard let subscriber = subscribers.removeValue(forKey: id) else { return nil }
        let text = subscriber.rule.text
        ruleUsers[text, default: 1] -= 1
        guard ruleUsers[text] == 0 else { return (subscriber, false) }
        ruleUsers[text] = nil
        ruleInstalls[text] = nil
        return (subscriber, true)
    }

    func receivers(of message: Message) -> [@Sendable (Message) -> Void] {
        subscribers.values.filter { $0.rule.matches(message) }.map(\.deliver)
    }

    /// Empties the registry; returns the subscribers, to be ended (and released) after the lock.
    mutating func removeAll() -> [Subscriber] {
        defer {
            subscribers = [:]
            ruleUsers = [:]
            ruleInstalls = [:]
        }
        return Array(subscribers.values)
    }
}

extension Connection {
    /// Subscribes to signals matching `rule`. Returns once the bus has installed the rule, so
    /// no signal sent afterwards is missed. The rule stays on the bus while at least one
    /// subscriber of this connection iterates; ending the last one removes it. The unix fds a
    /// signal carries are closed once it is delivered (see `onSignal` to keep one).
    public func signals(matching rule: MatchRule) async throws -> AsyncStream<Message> {
        let (stream, continuation) = AsyncStream<Message>.makeStream()
        let subscription = try await subscribe(
            rule, deliver: { continuation.yield($0) }, finish: { continuation.finish() })
        continuation.onTermination = { _ in subscription.cancel() }
        return stream
    }

    /// Subscribes `handler` to signals matching `rule`, once the bus has installed the rule.
    /// The handler runs on the connection's owner thread, one message at a time in the order
    /// they arrive, so it must not block; it suits work that must keep that order (counting
    /// or coalescing notifications). The subscription lasts until cancelled or the connection closes.
    /// The unix fds a signal carries are closed when the handlers return: dup one to keep it.
    public func onSignal(matching rule: MatchRule, _ handler: @escaping @Sendable (Message) -> Void) async throws
        -> SignalSubscription
    {
        try await subscribe(rule, deliver: handler, finish: {})
    }

    private func subscribe(
        _ rule: MatchRule, deliver: @escaping @Sendable (Message) -> Void,
        finish: @escaping @Sendable () -> Void
    ) async throws -> SignalSubscription {
        try rule.validate()
        let (id, install, isFirst) = state.withLock { state in
            let (id, isFirst) = state.subscriptions.add(.init(rule: rule, deliver: deliver, finish: finish))
            if isFirst { state.subscriptions.ruleInstalls[rule.text] = RuleInstall() }
            return (id, state.subscriptions.ruleInstalls[rule.text]!, isFirst)
        }
        if isFirst {
            // Sent once the lock is let go, with no task: a task here would start a worker
            // thread in a process whose connection is served by its main thread.
            call(
                destination: Connection.busName, path: Connection.busPath, interface: Connection.busName,
                member: "AddMatch", [.string(rule.text)]
            ) { install.finish($0.map { _ in }) }
        }
        let subscription = SignalSubscription { [weak self] in self?.unsubscribe(id) }
        do {
            try await install.wait()
        } catch {
            subscription.cancel()
            finish()
            throw error
        }
        return subscription
    }

    private func unsubscribe(_ id: UInt64) {
        guard let (subscriber, wasLast) = state.withLock({ $0.subscriptions.remove(id) }), wasLast else { return }
        // Sent without waiting: the bus handles this connection's messages in order, so a
        // later AddMatch of the same rule lands after this removal.
        if let message = try? OutgoingMessage.methodCall(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "RemoveMatch", body: [.string(subscriber.rule.text)])
        {
            dbus_message_set_no_reply(message, 1)
            _ = try? send(message)
        }
    }

    /// Each matching subscriber gets the signal, then its descriptors are closed: anyone on
    /// the bus may send a signal carrying descriptors to a rule that expects none (a spoofed
    /// post), and each would stay open here. A subscriber that keeps one dups it in its handler.
    func deliverSignal(_ message: Message) {
        let receivers = state.withLock { $0.subscriptions.receivers(of: message) }
        for deliver in receivers { deliver(message) }
        message.closeUnixFDs()
    }
}

/// One subscription of `Connection.onSignal`; `cancel()` ends it (and removes the rule from
/// the bus when it was the rule's last subscriber). Cancelling twice does nothing.
public final class SignalSubscription: Sendable {
    private let end: Mutex<(@Sendable () -> Void)?>

    init(_ end: @escaping @Sendable () -> Void) { self.end = Mutex(end) }

    public func cancel() {
        end.withLock { end in
            defer { end = nil }
            return end
        }?()
    }
}

/// A rule's `AddMatch`, sent once: every subscriber of the rule waits for its outcome.
final class RuleInstall: Sendable {
    private struct State {
        var outcome: Result<Void, any Error>?
        var waiting: [CheckedContinuation<Void, any Error>] = []
    }
    private let state = Mutex(State())

    func finish(_ outcome: Result<Void, any Error>) {
        let waiting = state.withLock { state in
            state.outcome = outcome
            defer { state.waiting = [] }
            return state.waiting
        }
        for waiter in waiting { waiter.resume(with: outcome) }
    }

    func wait() async throws {
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            let outcome = state.withLock { state in
                if state.outcome == nil { state.waiting.append(waiter) }
                return state.outcome
            }
            if let outcome { waiter.resume(with: outcome) }
        }
    }
}
