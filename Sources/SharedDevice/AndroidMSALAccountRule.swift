/// How MSAL inside an Android app tells an account change (Docs/behaviour.md §5): callbacks
/// instead of a pair.
public struct AndroidMSALAccountRule: Codable, Equatable, Sendable {
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
extension AndroidMSALAccountRule {
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
