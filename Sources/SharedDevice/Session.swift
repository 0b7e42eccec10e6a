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

/// MSAL's one account on the device (Docs/behaviour.md §2): who is signed in, and the generation
/// of the change that signed them in or out. With `BrokerSetup.hub` it is always the session's
/// checked-out user and generation; with `.authenticator` it changes on its own.
public struct BrokerSession: Equatable, Sendable, Codable {
    /// The signed-in account's user; nil: none.
    public var account: String?
    public var generation: UInt64

    public init(account: String? = nil, generation: UInt64 = 0) {
        self.account = account
        self.generation = generation
    }
}

/// Who is MSAL's broker on the device (Docs/behaviour.md §2, "Two broker setups").
public enum BrokerSetup: String, Sendable, Codable, CaseIterable {
    /// The Hub is MSAL's broker too: a check-out is a global sign-in, a check-in a global
    /// sign-out.
    case hub
    /// Microsoft Authenticator is MSAL's broker, beside the Hub: a check-in or check-out
    /// changes the Hub's session only, and MSAL's account is signed in and out in an MSAL app
    /// (or in Authenticator).
    case authenticator
}
