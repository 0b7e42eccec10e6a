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

/// Why the broker's accounts could not be had; an SDK then changes nothing.
public enum BrokerError: Error, Equatable, Sendable {
    /// Nobody answered: the hub is gone, or did not answer in time.
    case unreachable
    /// The broker refused, with the device's error.
    case refused(DeviceError)
    /// The broker answered with more than one account.
    case ambiguousAccount
    /// The answer was not of the contract (an account that is no account: `InvalidAnswer`), or
    /// an error that is not the device's: what it was.
    case invalidAnswer(String)

    /// The hub's answer held an account that is no account.
    public static let accountThatIsNone = BrokerError.invalidAnswer("InvalidAnswer")

    /// As the trace and the SDKs' errors name it: `HubUnreachable`, the device's error
    /// (`Offline`), `ambiguousAccount`, or what the answer was.
    public var label: String {
        switch self {
        case .unreachable: WorkspaceOneSDK.hubUnreachableError
        case .refused(let error): error.rawValue
        case .ambiguousAccount: "ambiguousAccount"
        case .invalidAnswer(let what): what
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
        /// The callback the app gets: `current-account(CURRENT,PREVIOUS)`.
        public var callback: SDKCallback { .currentAccount(current: current?.username, previous: previous?.username) }
    }

    /// A call in flight: MSAL reads the last-seen account when the call begins, before it asks
    /// the broker, so two calls in flight across a change both report it (`(B, A)` twice).
    public struct Call: Sendable {
        public let previous: BrokerAccount?
    }

    public func beginCall() -> Call { Call(previous: lastSeen) }

    /// Ends `call` with what the broker answered, or why it could not.
    public mutating func finish(_ call: Call, _ brokerAccounts: Result<[BrokerAccount], BrokerError>)
        throws(BrokerError)
        -> CurrentAccount
    {
        let accounts = try brokerAccounts.get()
        guard accounts.count <= 1 else { throw .ambiguousAccount }
        lastSeen = accounts.first
        return CurrentAccount(current: accounts.first, previous: call.previous)
    }

    /// A call that nothing overlaps: begun and ended with `brokerAccounts`.
    public mutating func getCurrentAccount(_ brokerAccounts: Result<[BrokerAccount], BrokerError>) throws(BrokerError)
        -> CurrentAccount
    {
        try finish(beginCall(), brokerAccounts)
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

        /// The callback as the app gets it, by username.
        public var callback: SDKCallback {
            switch self {
            case .accountChanged(let prior, let current):
                .accountChanged(prior: prior?.username, current: current?.username)
            case .accountLoaded(let current): .accountLoaded(current?.username)
            }
        }

        public var description: String { callback.description }
    }

    public private(set) var stored: Stored

    public init(stored: Stored = .none) { self.stored = stored }

    /// `account-changed(prior, current)` only when the home account ids differ (a corrupt
    /// stored value always counts as a change from none), then always `account-loaded`.
    public mutating func getCurrentAccount(_ brokerAccounts: Result<[BrokerAccount], BrokerError>) throws(BrokerError)
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

/// The app's own global sign-in and sign-out (Docs/behaviour.md §5): MSAL Android's
/// single-account client guards both on the account persisted in the app, never the broker's,
/// and refuses before any broker call when the guard fails.
extension AndroidMSALClient {
    public enum OwnRequest: String, Sendable, CaseIterable {
        case signIn = "sign-in"
        case signOut = "sign-out"
    }

    /// Why the client refuses a request without asking the broker: MSAL Android's
    /// `MsalClientException` codes.
    public enum Refusal: Error, Sendable, CaseIterable {
        /// `INVALID_PARAMETER`, "An account is already signed in.": a sign-in while an account is persisted.
        case invalidParameter
        /// `NO_CURRENT_ACCOUNT`, "There is no signed-in account.": a sign-out with none persisted.
        case noCurrentAccount

        /// The error an app answers with: the app's own, or the one the broker uses too.
        public var error: DeviceError {
            switch self {
            case .invalidParameter: .invalidParameter
            case .noCurrentAccount: .noCurrentAccount
            }
        }
    }

    public enum Decision: Equatable, Sendable {
        /// Go on to the broker: its `SignIn`, or the device's sign-out (in shared device mode
        /// the broker signs out whoever is signed in); the broker may still refuse.
        case askBroker
        case refuse(Refusal)
    }

    /// The persisted account as the client reads it back. A corrupt value reads as none, as it
    /// does for `account-changed` (a change from none).
    public var persistedAccount: BrokerAccount? {
        if case .account(let account) = stored { account } else { nil }
    }

    /// A sign-in goes on only with no account persisted (`InvalidParameter` otherwise); a
    /// sign-out only with one (`NoCurrentAccount` otherwise). What the broker holds does not
    /// matter: an app is not told of every change, so its record can be behind the broker's.
    public func decide(_ request: OwnRequest) -> Decision {
        switch (request, persistedAccount) {
        case (.signIn, nil), (.signOut, .some): .askBroker
        case (.signIn, .some): .refuse(.invalidParameter)
        case (.signOut, nil): .refuse(.noCurrentAccount)
        }
    }
}
