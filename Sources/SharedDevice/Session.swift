/// The device's one user session (Docs/behaviour.md §1): who is checked out, and a 64-bit
/// generation that every session change increments.
public struct Session: Equatable, Sendable, Codable {
    public enum State: String, Sendable, Codable, CaseIterable {
        case unenrolled
        case checkedIn = "checked-in"
        case checkedOut = "checked-out"
    }

    public var state: State
    /// The checked-out user; nil unless `state` is `checkedOut`.
    public var user: String?
    public var generation: UInt64

    public init(state: State = .unenrolled, user: String? = nil, generation: UInt64 = 0) {
        self.state = state
        self.user = user
        self.generation = generation
    }

    /// Whom the device is checked out to: the user while checked out, else nobody.
    public var checkedOutUser: String? { state == .checkedOut ? user : nil }

    /// A device fresh from the box.
    public static let unenrolled = Session()
}
