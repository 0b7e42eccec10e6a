import DBusKit
import DeviceContract
import SharedDevice
import Synchronization

/// The MSAL calls both flavours share: global sign-in and sign-out through the broker, tokens
/// and the device's information. None needs the app's keychain, so the iOS facade calls them
/// even when its keychain cannot be opened. Neither listens for the broker's announcement of a
/// change: the app does (`ReceivedPost.observe`, under its notify client or receiver).
public struct Broker: Sendable {
    let hub: HubCalls
    let clientID: String

    init(hub: HubCalls, clientID: String) {
        self.hub = hub
        self.clientID = clientID
    }

    public init(connection: Connection, clientID: String, hub: HubAddress = .wellKnown, timeout: Duration = .seconds(5))
    {
        self.init(hub: HubCalls(connection: connection, address: hub, timeout: timeout), clientID: clientID)
    }

    public func signIn(_ user: String, _ password: String) async throws -> BrokerAccount {
        let reply = try await hub.call(BrokerMethod.signIn, [.string(user), .string(password), .string(clientID)])
        guard let account = BrokerAccount(wire: reply.first) else {
            throw DBusError.failed("the broker's SignIn reply has no account")
        }
        return account
    }

    /// Signs the device's current account out, for every app.
    public func signOut() async throws {
        guard let account = try await hub.accounts().mapError({ DBusError.device($0.label) }).get().first else {
            throw DeviceError.noCurrentAccount.dbusError
        }
        _ = try await hub.call(BrokerMethod.signOut, [.string(account.homeAccountID), .string(clientID)])
    }

    /// Signs this account out, for every app: the broker refuses an account that is not the
    /// signed-in one (`AccountMismatch`).
    public func signOut(homeAccountID: String) async throws {
        _ = try await hub.call(BrokerMethod.signOut, [.string(homeAccountID), .string(clientID)])
    }

    /// A token for the signed-in account, bound to the session it was asked in.
    public func token(homeAccountID: String) async throws -> BrokerToken {
        let reply = try await hub.call(BrokerMethod.acquireTokenSilent, [.string(homeAccountID), .string(clientID)])
        guard let fields = reply.first?.fields, fields.count == 2, let token = fields[0].string,
            let expiry = fields[1].uint64
        else { throw DBusError.failed("the broker answered no token") }
        return BrokerToken(accessToken: token, expiresOn: expiry)
    }

    public func deviceInformation() async throws -> DeviceInformation {
        DeviceInformation(wire: try await hub.call(BrokerMethod.getDeviceInformation).first)
    }

    /// Whether the device is in shared device mode.
    public func isSharedDevice() async throws -> Bool { try await deviceInformation().isSharedDevice }

    /// The broker's accounts, or why they could not be had.
    public func accounts() async throws(CancellationError) -> Result<[BrokerAccount], BrokerError> {
        try await hub.accounts()
    }
}

/// A token the broker handed out: valid until `expiresOn` (seconds since 1970), and only while
/// the session it was asked in lasts.
public struct BrokerToken: Sendable, Equatable {
    public let accessToken: String
    public let expiresOn: UInt64
}

/// A post as it reached the app. It carries no payload; its sender and serial only name it
/// (so a trace can tell which post arrived when).
public struct ReceivedPost: Sendable, Equatable {
    public let sender: String
    public let serial: UInt32

    /// Calls `handler` for every post of `name` (a Darwin notification's name, or an Android
    /// broadcast's action), in the order they arrive, on the connection's thread (so it must
    /// not block). A post is a hint: an MSAL app's handler should ask `getCurrentAccount`.
    public static func observe(
        _ name: String, on connection: Connection, _ handler: @escaping @Sendable (ReceivedPost) -> Void
    ) async throws -> PostSubscription {
        PostSubscription(
            try await connection.onSignal(matching: DeviceBus.posts(of: name)) { message in
                handler(ReceivedPost(sender: message.sender ?? "", serial: message.serial))
            })
    }
}

/// Posts of one name heard until `cancel()`.
public struct PostSubscription: Sendable {
    private let subscription: SignalSubscription

    init(_ subscription: SignalSubscription) { self.subscription = subscription }

    public func cancel() { subscription.cancel() }
}

/// MSAL in an iOS app in shared device mode (Docs/behaviour.md §4), as an app calls it. The last-seen
/// account lives in the app's keychain.
public final class MSALBrokerClient: Sendable {
    private let broker: Broker
    private let keychain: Keychain
    fileprivate struct State {
        var rule: MSALAccountRule
        var lastSeen: KeychainRecord<BrokerAccount?>
        /// The account this app signed out of on a personal device, which it no longer sees.
        var signedOutHere: LocalSignOutRecord
        /// The calls the broker's answer in flight will end, if one is in flight.
        var asked: [Waiting]?
        /// The calls begun since that answer was asked for: the next answer ends them all.
        var next: [Waiting] = []
    }
    fileprivate typealias Waiting = (call: MSALAccountRule.Call, completion: Completion)
    private let state: Mutex<State>
    static let item = "msal-last-seen-account"
    static let signedOutItem = "msal-signed-out-here"

    public init(
        connection: Connection, clientID: String, keychain: Keychain, hub: HubAddress = .wellKnown,
        timeout: Duration = .seconds(5)
    ) {
        broker = Broker(hub: HubCalls(connection: connection, address: hub, timeout: timeout), clientID: clientID)
        self.keychain = keychain
        let saved = keychain.item(Self.item, as: BrokerAccount?.self) ?? nil
        state = Mutex(
            State(
                rule: MSALAccountRule(lastSeen: saved), lastSeen: KeychainRecord(Self.item, holding: saved),
                signedOutHere: LocalSignOutRecord(Self.signedOutItem, in: keychain)))
    }

    /// What `getCurrentAccount` answers: `(current, previous)`, or why there is none.
    public typealias CurrentAccountAnswer = Result<MSALAccountRule.CurrentAccount, BrokerError>
    public typealias Completion = @Sendable (CurrentAccountAnswer, _ keychainFailure: String?) -> Void

    /// `(current, previous)`, to `completion` on the connection's owner thread; on an error
    /// nothing is written. A keychain that cannot be written (a full disk) does not withhold
    /// the result, since the app must act on a sign-out: the account is kept in memory and
    /// written at the next call, and `keychainFailure` says why it was not written at this one.
    ///
    /// Calls may overlap: all report a change they overlap, as MSAL's do. The broker is asked
    /// one question at a time: calls begun while one is out wait for the next, asked as soon as
    /// that one is answered, so each call's answer was given after it began, and a burst of
    /// posts costs the broker about two questions, not one per post (Docs/behaviour.md §4).
    public func getCurrentAccount(completion: @escaping Completion) {
        let ask = state.withLock { state in
            state.next.append((state.rule.beginCall(), completion))
            return state.startNextQuestion()
        }
        if ask { askBroker() }
    }

    private func askBroker() {
        broker.hub.accounts { [self] answer in
            let (ended, askAgain) = state.withLock { state in
                let ended = (state.asked ?? []).map { waiting in
                    (waiting.completion, state.finish(waiting.call, answer, keychain))
                }
                state.asked = nil
                return (ended, state.startNextQuestion())
            }
            if askAgain { askBroker() }
            for (completion, (result, keychainFailure)) in ended { completion(result, keychainFailure) }
        }
    }

    /// `getCurrentAccount(completion:)`, awaited.
    public func getCurrentAccount() async -> CurrentAccountAnswer {
        await withCheckedContinuation { continuation in
            getCurrentAccount { answer, _ in continuation.resume(returning: answer) }
        }
    }

    /// The app's own sign-in; an account it signed out of on a personal device comes back
    /// (`Broker.signIn(_:_:after:)`).
    public func signIn(user: String, password: String) async throws -> BrokerAccount {
        let account = try await broker.signIn(user, password, after: state.withLock { $0.signedOutHere.value })
        _ = state.withLock { $0.signedOutHere.change({ $0.signedIn() }, in: keychain) }
        return account
    }

    /// The app's own sign-out of `homeAccountID`: global in shared device mode, else out of
    /// this app alone (Docs/behaviour.md §2).
    public func signOut(homeAccountID: String) async throws {
        guard try await !broker.signOutIsGlobal() else { return try await broker.signOut(homeAccountID: homeAccountID) }
        guard let current = try await accounts().mapError({ DBusError.device($0.label) }).get().first else {
            throw DeviceError.noCurrentAccount.dbusError
        }
        guard current.homeAccountID.lowercased() == homeAccountID.lowercased() else {
            throw DeviceError.accountMismatch.dbusError
        }
        _ = state.withLock { $0.signedOutHere.change({ $0.signedOut(current) }, in: keychain) }
    }

    /// The broker's accounts as this app sees them, or why they could not be had.
    public func accounts() async throws(CancellationError) -> Result<[BrokerAccount], BrokerError> {
        let hidden = state.withLock { $0.signedOutHere.value }
        return try await broker.hub.accounts().map(hidden.visible)
    }

    public func deviceInformation() async throws -> DeviceInformation { try await broker.deviceInformation() }
}

extension MSALBrokerClient.State {
    /// Moves the calls begun since the last question to a new one, if none is out and some wait.
    mutating func startNextQuestion() -> Bool {
        guard asked == nil, !next.isEmpty else { return false }
        (asked, next) = (next, [])
        return true
    }

    /// Ends `call` with the broker's answer, writing the last-seen account if it changed.
    mutating func finish(
        _ call: MSALAccountRule.Call, _ answer: Result<[BrokerAccount], BrokerError>, _ keychain: Keychain
    ) -> (MSALBrokerClient.CurrentAccountAnswer, keychainFailure: String?) {
        do throws(BrokerError) {
            let result = try rule.finish(call, answer.map(signedOutHere.value.visible))
            // Unchanged (a spoofed post, a return to the foreground): nothing is written.
            let failure = whyFailed { try lastSeen.write(rule.lastSeen, to: keychain) }
            return (.success(result), failure)
        } catch {
            return (.failure(error), nil)
        }
    }
}

/// MSAL in an Android app (Docs/behaviour.md §5): `getCurrentAccount` reports callbacks, and the app's
/// own sign-in and sign-out are guarded on the stored account and update it.
public actor AndroidMSALBrokerClient {
    private let broker: Broker
    private let keychain: Keychain
    private var rule: AndroidMSALAccountRule
    private var current: KeychainRecord<BrokerAccount?>
    /// The account this app signed out of on a personal device, which it no longer sees.
    private var signedOutHere: LocalSignOutRecord
    /// Why the stored account could not be written at the last change, if it could not.
    public private(set) var keychainFailure: String?
    static let item = "msal-android-current-account"
    static let signedOutItem = "msal-android-signed-out-here"

    public init(
        connection: Connection, clientID: String, keychain: Keychain, hub: HubAddress = .wellKnown,
        timeout: Duration = .seconds(5)
    ) {
        broker = Broker(hub: HubCalls(connection: connection, address: hub, timeout: timeout), clientID: clientID)
        self.keychain = keychain
        let stored: AndroidMSALAccountRule.Stored =
            switch keychain.item(Self.item, as: BrokerAccount?.self) {
            case .some(.some(let account)): .account(account)
            case .some(.none): .none
            case .none: keychain.hasItem(Self.item) ? .corrupt : .none
            }
        rule = AndroidMSALAccountRule(stored: stored)
        current = KeychainRecord(Self.item, holding: stored.account)
        signedOutHere = LocalSignOutRecord(Self.signedOutItem, in: keychain)
    }

    /// `account-changed(prior, current)` when the account changed, then `account-loaded(current)`.
    /// As on iOS, a keychain that cannot be written does not withhold the callbacks: the
    /// account is kept in memory and written at the next call (`keychainFailure` says why).
    public func getCurrentAccount() async throws(CancellationError) -> Result<
        [AndroidMSALAccountRule.Callback], BrokerError
    > {
        let answer = try await broker.hub.accounts().map(signedOutHere.value.visible)
        do throws(BrokerError) {
            let callbacks = try rule.getCurrentAccount(answer)
            save()
            return .success(callbacks)
        } catch {
            return .failure(error)
        }
    }

    /// Refused with `InvalidParameter`, the broker not asked, while an account is persisted in
    /// the app (`AndroidMSALAccountRule.decide`).
    public func signIn(user: String, password: String) async throws -> BrokerAccount {
        try requireAllowed(.signIn)
        let account = try await broker.signIn(user, password, after: signedOutHere.value)
        rule.signedInHere(as: account)
        let failure = signedOutHere.change({ $0.signedIn() }, in: keychain)
        save()
        keychainFailure = keychainFailure ?? failure
        return account
    }

    /// Refused with `NoCurrentAccount`, the broker not asked, while no account is persisted in
    /// the app, even if the broker has one (`AndroidMSALAccountRule.decide`). In shared device
    /// mode the broker signs out whoever is signed in, for every app; on a personal device the
    /// persisted account leaves this app alone (Docs/behaviour.md §2).
    public func signOut() async throws {
        try requireAllowed(.signOut)
        var failure: String?
        if try await broker.signOutIsGlobal() {
            try await broker.signOut()
        } else if let account = rule.persistedAccount {
            failure = signedOutHere.change({ $0.signedOut(account) }, in: keychain)
        }
        rule.signedOutHere()
        save()
        keychainFailure = keychainFailure ?? failure
    }

    /// Throws the rule's refusal of the app's own request, if it refuses.
    private func requireAllowed(_ request: AndroidMSALAccountRule.OwnRequest) throws {
        if case .refuse(let refusal) = rule.decide(request) { throw refusal.dbusError }
    }

    public func deviceInformation() async throws -> DeviceInformation { try await broker.deviceInformation() }

    /// Writes the stored account if the keychain does not hold it yet.
    private func save() {
        keychainFailure = whyFailed { try current.write(rule.stored.account ?? nil, to: keychain) }
    }
}

extension AndroidMSALAccountRule.Stored {
    /// The account as the keychain keeps it: none or one; nil for a value that could not be
    /// read back (it is written over at the first change).
    var account: BrokerAccount?? {
        switch self {
        case .none: .some(nil)
        case .account(let account): .some(account)
        case .corrupt: nil
        }
    }
}
