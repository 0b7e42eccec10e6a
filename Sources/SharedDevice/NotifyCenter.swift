/// The Darwin notification center's per-name 64-bit state (Docs/behaviour.md §3: the
/// `notify_set_state` / `notify_get_state` analog). Posts themselves carry no payload and are
/// not kept: they are signals on the bus.
/// Any client may set a state, so the names kept are bounded: a name set to 0 is forgotten (it
/// reads 0 either way), and past `capacity` names the least recently set is forgotten, except
/// the account-change name, which the broker keeps.
public struct NotifyCenter: Equatable, Sendable, Codable {
    private var states: [String: UInt64] = [:]
    /// The names set, least recently first (since the hub started: the saved state keeps no order).
    private var recent: [String] = []

    public static let capacity = 256

    public init() {}

    private enum CodingKeys: String, CodingKey { case states }

    public init(from decoder: any Decoder) throws {
        states = try decoder.container(keyedBy: CodingKeys.self).decode([String: UInt64].self, forKey: .states)
        recent = states.keys.sorted()
    }

    /// A name never set reads as 0, as with notify_get_state.
    public func state(of name: String) -> UInt64 { states[name] ?? 0 }

    public mutating func setState(of name: String, to value: UInt64) {
        recent.removeAll { $0 == name }
        guard value != 0 else {
            states[name] = nil
            return
        }
        states[name] = value
        recent.append(name)
        while states.count > Self.capacity, let oldest = recent.firstIndex(where: { $0 != Self.accountChanged }) {
            states[recent.remove(at: oldest)] = nil
        }
    }

    /// How many names hold a state other than 0.
    public var count: Int { states.count }

    /// Whether a name is acceptable: non-empty, without NUL, at most 255 bytes (the length of
    /// a D-Bus name, so any name can also travel in a match rule).
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 255 && !name.utf8.contains(0)
    }

    /// The broker's notification for account changes (Docs/behaviour.md §2).
    public static let accountChanged = "SHARED_MODE_CURRENT_ACCOUNT_CHANGED"
}
