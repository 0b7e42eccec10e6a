/// An account as the broker reports it (Docs/behaviour.md §2, §4).
public struct BrokerAccount: Codable, Equatable, Hashable, Sendable {
    public var homeAccountID: String
    public var username: String

    public init(homeAccountID: String, username: String) {
        self.homeAccountID = homeAccountID
        self.username = username
    }

    /// The broker's account for a directory user.
    public init(user: String) { self.init(homeAccountID: HubModel.homeAccountID(of: user), username: user) }

    /// MSAL compares home account ids without regard to case.
    public func isSameAccount(as other: BrokerAccount?) -> Bool {
        other.map { $0.homeAccountID.lowercased() == homeAccountID.lowercased() } ?? false
    }
}

/// How MSAL names an account in a callback: its username, or `none`.
func label(_ account: BrokerAccount?) -> String { account?.username ?? "none" }

/// Why a current-account query failed; nothing is written then.
public enum MSALError: Error, Equatable, Sendable {
    /// The broker answered with more than one account.
    case ambiguousAccount
    /// The broker could not be asked (the hub did not answer) or answered with an error.
    case broker(String)

    public var label: String {
        switch self {
        case .ambiguousAccount: "ambiguousAccount"
        case .broker(let name): name
        }
    }
}

/// Whether two optional accounts name the same account (none equals none).
func sameAccount(_ a: BrokerAccount?, _ b: BrokerAccount?) -> Bool {
    a == nil ? b == nil : a!.isSameAccount(as: b)
}

/// The MSAL client inside an iOS app in shared device mode (Docs/behaviour.md §4): `getCurrentAccount`
/// over the persisted last-seen account.
public struct MSALClient: Codable, Equatable, Sendable {
    /// Persisted in the app's keychain.
    public private(set) var lastSeen: BrokerAccount?

    public init(lastSeen: BrokerAccount? = nil) { self.lastSeen = lastSeen }

    public struct CurrentAccount: Equatable, Sendable {
        public var current: BrokerAccount?
        public var previous: BrokerAccount?

        public init(current: BrokerAccount?, previous: BrokerAccount?) {
            self.current = current
            self.previous = previous
        }

        /// The user changed: the app stops its work and cleans up for `previous`.
        public var userChanged: Bool { !sameAccount(current, previous) }
        /// The callback as recorded: `current-account(CURRENT,PREVIOUS)`.
        public var callback: String { "current-account(\(label(current)),\(label(previous)))" }
    }

    /// `brokerAccounts` is what the broker answered, or why it could not.
    public mutating func getCurrentAccount(_ brokerAccounts: Result<[BrokerAccount], MSALError>) throws(MSALError)
        -> CurrentAccount
    {
        let accounts = try brokerAccounts.get()
        guard accounts.count <= 1 else { throw .ambiguousAccount }
        let previous = lastSeen
        lastSeen = accounts.first
        return CurrentAccount(current: accounts.first, previous: previous)
    }
}

/// The MSAL client inside an Android app (Docs/behaviour.md §5): callbacks instead of a pair.
public struct AndroidMSALClient: Codable, Equatable, Sendable {
    public enum Stored: Codable, Equatable, Sendable {
        case none
        case account(BrokerAccount)
        /// A value that cannot be read back.
        case corrupt
    }

    public enum Callback: Equatable, Sendable, CustomStringConvertible {
        case accountChanged(prior: BrokerAccount?, current: BrokerAccount?)
        case accountLoaded(BrokerAccount?)

        /// The account the app is told it now has.
        public var account: BrokerAccount? {
            switch self {
            case .accountChanged(_, let current), .accountLoaded(let current): current
            }
        }

        public var description: String {
            switch self {
            case .accountChanged(let prior, let current): "account-changed(\(label(prior)),\(label(current)))"
            case .accountLoaded(let current): "account-loaded(\(label(current)))"
            }
        }
    }

    public private(set) var stored: Stored

    public init(stored: Stored = .none) { self.stored = stored }

    /// `account-changed(prior, current)` only when the home account ids differ (a corrupt
    /// stored value always counts as a change from none), then always `account-loaded`.
    public mutating func getCurrentAccount(_ brokerAccounts: Result<[BrokerAccount], MSALError>) throws(MSALError)
        -> [Callback]
    {
        let accounts = try brokerAccounts.get()
        guard accounts.count <= 1 else { throw .ambiguousAccount }
        let current = accounts.first
        var callbacks: [Callback] = []
        switch stored {
        case .corrupt:
            callbacks.append(.accountChanged(prior: nil, current: current))
        case .none where current != nil:
            callbacks.append(.accountChanged(prior: nil, current: current))
        case .account(let prior) where !prior.isSameAccount(as: current):
            callbacks.append(.accountChanged(prior: prior, current: current))
        default:
            break
        }
        stored = current.map(Stored.account) ?? .none
        return callbacks + [.accountLoaded(current)]
    }

    /// The app's own sign-in succeeded: a later check sees no change.
    public mutating func signedInHere(as account: BrokerAccount) { stored = .account(account) }

    /// The app's own sign-out.
    public mutating func signedOutHere() { stored = .none }
}
