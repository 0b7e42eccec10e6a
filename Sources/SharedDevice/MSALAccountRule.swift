/// How MSAL inside an iOS app in shared device mode answers `getCurrentAccount` (Docs/behaviour.md
/// §4): over the persisted last-seen account.
public struct MSALAccountRule: Codable, Equatable, Sendable {
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
