/// The Darwin notification center's per-name 64-bit state (Docs/behaviour.md §3: the
/// `notify_set_state` / `notify_get_state` analog). Posts themselves carry no payload and are
/// not kept: they are signals on the bus.
public struct NotifyCenter: Equatable, Sendable, Codable {
    private var states: [String: UInt64] = [:]

    public init() {}

    /// A name never set reads as 0, as with notify_get_state.
    public func state(of name: String) -> UInt64 { states[name] ?? 0 }

    public mutating func setState(of name: String, to value: UInt64) { states[name] = value }

    /// Whether a name is acceptable: non-empty, without NUL, at most 255 bytes (the length of
    /// a D-Bus name, so any name can also travel in a match rule).
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 255 && !name.utf8.contains(0)
    }

    /// The broker's notification for account changes (Docs/behaviour.md §2).
    public static let accountChanged = "SHARED_MODE_CURRENT_ACCOUNT_CHANGED"
}
