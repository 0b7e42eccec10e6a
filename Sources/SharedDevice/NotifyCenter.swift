/// The Darwin notification center's names (Docs/behaviour.md §3): which processes hold a
/// registration for each, and each name's 64-bit state (the `notify_set_state` /
/// `notify_get_state` analog). Posts themselves carry no payload and are not kept: they are
/// signals on the bus.
///
/// As in Libnotify's server, a name and its state live only while some process holds a
/// registration for it: a state set on a name nobody holds is not kept, and when the last
/// registration goes (cancelled, or its process left the bus) the state is forgotten. The
/// broker keeps the state of the account-change name, so the center holds that name itself.
/// Any client may register and set, so the names kept are bounded: past `capacity` the least
/// recently registered or set one is forgotten with its registrations, never the
/// account-change name.
public struct NotifyCenter: Equatable, Sendable, Codable {
    /// Per name held by processes: each holder (its unique bus name) and how many
    /// registrations it holds.
    private var holders: [String: [String: Int]] = [:]
    /// The states other than 0, of names held (by processes or the center).
    private var states: [String: UInt64] = [:]
    /// The names kept, least recently registered or set first (since the hub started).
    private var recent: [String] = []

    public static let capacity = 256

    public init() {}

    // MARK: - Names

    /// The longest name, in bytes: Libnotify's names are `c_string[*:512]`, NUL included.
    public static let maxNameLength = 511

    /// What every layer answers for a name outside the rule.
    public static let nameRule = "a notification name is 1 to \(maxNameLength) bytes without NUL"

    /// Names private to the process that uses them: posted, delivered and kept in it alone.
    public static let processLocalPrefix = "self."

    /// Whether a name is acceptable: 1 to `maxNameLength` bytes without NUL.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= maxNameLength && !name.utf8.contains(0)
    }

    public static func isProcessLocal(_ name: String) -> Bool {
        name.utf8.starts(with: processLocalPrefix.utf8)
    }

    /// Why the center refuses a name it is sent, or nil when it takes it: a name outside the
    /// rule, or a process-local one, which a process never sends (it stays in its notify library).
    public static func refusal(of name: String) -> String? {
        guard isValidName(name) else { return nameRule }
        guard !isProcessLocal(name) else {
            return "\(processLocalPrefix) names are private to the process that uses them: none reaches the hub"
        }
        return nil
    }

    /// The broker's notification for account changes (Docs/behaviour.md §2).
    public static let accountChanged = "SHARED_MODE_CURRENT_ACCOUNT_CHANGED"

    /// Whether the center itself holds the name: the broker keeps its state.
    public static func isHeldByTheCenter(_ name: String) -> Bool { name == accountChanged }

    // MARK: - Registrations

    /// Whether some process, or the center, holds a registration for the name.
    public func isHeld(_ name: String) -> Bool { Self.isHeldByTheCenter(name) || holders[name] != nil }

    /// How many registrations processes hold for the name.
    public func registrations(of name: String) -> Int { holders[name]?.values.reduce(0, +) ?? 0 }

    /// How many names are kept (held, or with a state).
    public var count: Int { Set(holders.keys).union(states.keys).count }

    /// `holder` registers for `name` once more. A refused name is ignored.
    public mutating func register(_ name: String, by holder: String) {
        guard Self.refusal(of: name) == nil else { return }
        holders[name, default: [:]][holder, default: 0] += 1
        touch(name)
    }

    /// `holder` cancels one of its registrations for `name`; with the name's last one, its state
    /// goes. Cancelling a registration the holder does not hold does nothing.
    public mutating func cancel(_ name: String, by holder: String) {
        guard let held = holders[name]?[holder] else { return }
        holders[name]?[holder] = held > 1 ? held - 1 : nil
        if holders[name]?.isEmpty == true { forget(name) }
    }

    /// Every registration of `holder` goes (its process left the bus), and the states of the
    /// names nobody else holds with them.
    public mutating func release(_ holder: String) {
        for name in holders.keys where holders[name]?[holder] != nil {
            holders[name]?[holder] = nil
            if holders[name]?.isEmpty == true { forget(name) }
        }
    }

    // MARK: - State

    /// A name never set, or held by nobody, reads as 0, as with notify_get_state.
    public func state(of name: String) -> UInt64 { states[name] ?? 0 }

    /// Sets the state of a name held; on a name nobody holds it is not kept (it reads 0), as
    /// `notifyutil -s foo.bar 123 -g foo.bar` prints 0. A refused name is ignored.
    public mutating func setState(of name: String, to value: UInt64) {
        guard Self.refusal(of: name) == nil, isHeld(name) else { return }
        states[name] = value == 0 ? nil : value
        touch(name)
    }

    // MARK: - Saving

    /// What outlives the hub process: the states of the names the center holds itself. A
    /// restarted hub knows no process's registrations, so it keeps nothing they held.
    public var saved: NotifyCenter {
        var center = NotifyCenter()
        center.states = states.filter { Self.isHeldByTheCenter($0.key) }
        center.recent = center.states.keys.sorted()
        return center
    }

    private enum CodingKeys: String, CodingKey { case states }

    public init(from decoder: any Decoder) throws {
        let saved = try decoder.container(keyedBy: CodingKeys.self).decode([String: UInt64].self, forKey: .states)
        states = saved.filter { Self.isHeldByTheCenter($0.key) && $0.value != 0 }
        recent = states.keys.sorted()
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(saved.states, forKey: .states)
    }

    // MARK: -

    /// Marks the name as the most recently used; past `capacity` names, the least recently
    /// used goes with its registrations (never the account-change name).
    private mutating func touch(_ name: String) {
        recent.removeAll { $0 == name }
        recent.append(name)
        while count > Self.capacity, let oldest = recent.firstIndex(where: { !Self.isHeldByTheCenter($0) }) {
            forget(recent[oldest])
        }
    }

    private mutating func forget(_ name: String) {
        holders[name] = nil
        recent.removeAll { $0 == name }
        if !Self.isHeldByTheCenter(name) { states[name] = nil }
    }
}
