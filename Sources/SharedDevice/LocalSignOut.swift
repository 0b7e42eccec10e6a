/// On a device that is not shared, an MSAL app's sign-out is its own (Docs/behaviour.md §2,
/// "Sign-out on a personal device"): the account leaves that app's cache, the broker keeps it
/// and the other apps stay signed in; nothing is posted. The app then sees the broker's accounts
/// without it, until it signs that account in again.
public struct LocalSignOut: Codable, Equatable, Sendable {
    /// The account this app signed out of; nil: none.
    public private(set) var account: BrokerAccount?

    public init(account: BrokerAccount? = nil) { self.account = account }

    /// The broker's accounts as this app sees them.
    public func visible(_ accounts: [BrokerAccount]) -> [BrokerAccount] {
        accounts.filter { !isSignedOut($0) }
    }

    /// Whether this app signed `account` out.
    public func isSignedOut(_ other: BrokerAccount) -> Bool { account?.isSameAccount(as: other) ?? false }

    /// The app signed `account` out of its own cache.
    public mutating func signedOut(_ account: BrokerAccount) { self.account = account }

    /// The app signed in again: it sees the broker's account once more.
    public mutating func signedIn() { account = nil }
}
