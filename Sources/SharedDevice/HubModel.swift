/// The hub's decisions (Docs/behaviour.md §1, §2): enrollment, the one session and its generation,
/// the console connection, the lock, and MSAL's one account (the Hub's own or, with
/// `BrokerSetup.authenticator`, Authenticator's beside it). Pure: the caller checks
/// passwords (an unknown user and a bad password both arrive as `nil`) and carries out the
/// returned posts.
public struct HubModel: Equatable, Sendable, Codable {
    /// Scenario `device` settings.
    public struct Policy: Equatable, Sendable, Codable {
        public var shared: Bool
        /// The broker also posts on a global sign-in (`broadcast_on: [sign-out, sign-in]`).
        public var broadcastOnSignIn: Bool
        /// The app-level passcode policy: a check-out must set a passcode.
        public var passcode: Bool
        /// Who is MSAL's broker: the Hub, or Authenticator beside it.
        public var broker: BrokerSetup

        public init(
            shared: Bool = true, broadcastOnSignIn: Bool = false, passcode: Bool = false, broker: BrokerSetup = .hub
        ) {
            self.shared = shared
            self.broadcastOnSignIn = broadcastOnSignIn
            self.passcode = passcode
            self.broker = broker
        }
    }

    /// What the hub must do after a change, in order: each platform's broker tells the apps its
    /// own way (Docs/behaviour.md §2).
    public enum Effect: Equatable, Sendable {
        /// The iOS broker's Darwin notification: its state (already set) is `state`, then the post.
        case post(name: String, state: UInt64)
        /// The Android broker's broadcast intent: an action, no state.
        case broadcast(action: String)

        /// The name apps hear it by (`SDKKind.announcement`).
        public var name: String {
            switch self {
            case .post(let name, _): name
            case .broadcast(let action): action
            }
        }
    }

    public private(set) var session = Session.unenrolled
    /// MSAL's account: the session's user, or Authenticator's own (`Policy.broker`).
    public private(set) var broker = BrokerSession()
    /// The checked-out user's directory entry (what `GetUserInfo` answers).
    public private(set) var checkedOutUser: DirectoryUser?
    /// Under the passcode policy, whether the session's user has set the app passcode.
    public private(set) var passcodeSet = false
    /// Which side is in front after the last unlock: the app, or the Hub app.
    public private(set) var foreground = Foreground.app
    public private(set) var staging: DirectoryUser.Staging?
    /// Single-user staging: the user the device went to for good.
    public private(set) var assignedUser: String?
    public private(set) var online: Bool
    public private(set) var locked = false
    public private(set) var notify = NotifyCenter()
    /// The off-device key service: each user's key for `external` records, made on first use.
    private var externalKeys: [String: [UInt8]] = [:]
    public let policy: Policy

    public init(policy: Policy = Policy(), online: Bool = true) {
        self.policy = policy
        self.online = online
    }

    /// Shared device mode: enrolled by a multi-user staging user on a device set up as shared.
    public var isShared: Bool { policy.shared && staging == .multiUser }
    public var deviceMode: String { isShared ? "shared" : "personal" }

    // MARK: - Hub1

    public mutating func enroll(as user: DirectoryUser?) throws(DeviceError) {
        guard let user else { throw .badCredentials }
        guard user.role == .staging else { throw .notStagingUser }
        guard session.state == .unenrolled else { throw .alreadyEnrolled }
        staging = user.staging
        session.state = .checkedIn
    }

    /// Check-out (a Hub log-in): with the Hub as broker, the same event as a global sign-in.
    public mutating func checkOut(as user: DirectoryUser?) throws(DeviceError) -> [Effect] {
        guard online else { throw .offline }
        guard let user else { throw .badCredentials }
        guard session.state != .unenrolled else { throw .notEnrolled }
        guard session.state != .checkedOut else { throw .alreadyCheckedOut }
        beginSession(user)
        return policy.broker == .hub ? signInAccount(user.name) : []
    }

    /// Check-in (a Hub log-out): with the Hub as broker, the same event as a global sign-out.
    public mutating func checkIn() throws(DeviceError) -> [Effect] {
        guard !locked else { throw .locked }
        guard session.state == .checkedOut else { throw .notCheckedOut }
        guard isShared else { throw .notShared }
        endSession()
        return policy.broker == .hub ? signOutAccount(posting: true) : []
    }

    public mutating func setOnline(_ reachable: Bool) { online = reachable }

    public mutating func lock() { locked = true }

    public enum Foreground: String, Equatable, Sendable, Codable {
        case app
        /// The Hub app.
        case hub
    }

    /// Where the foreground goes after an unlock in an app.
    public enum ForegroundAfterUnlock: String, Equatable, Sendable {
        /// Online: the app stays in front.
        case app
        /// Offline and checked out: to the Hub, then back to the app.
        case hubThenApp = "hub-then-app"
        /// Offline and checked in: to the Hub, and it stays there.
        case hub
    }

    /// Unlocking needs the credentials of the checked-out user (any user when checked in).
    public mutating func unlock(as user: DirectoryUser?) throws(DeviceError) -> ForegroundAfterUnlock {
        guard let user, session.state != .checkedOut || session.user == user.name else { throw .badCredentials }
        locked = false
        let switched: ForegroundAfterUnlock = online ? .app : session.state == .checkedOut ? .hubThenApp : .hub
        foreground = switched == .hub ? .hub : .app
        return switched
    }

    /// The console's entry for the checked-out user.
    public func userInfo() throws(DeviceError) -> DirectoryUser {
        guard let checkedOutUser else { throw .notCheckedOut }
        return checkedOutUser
    }

    /// Enterprise wipe from the console: the session ends as at a check-in and the device
    /// returns to unenrolled.
    public mutating func enterpriseWipe() throws(DeviceError) -> [Effect] {
        guard session.state != .unenrolled else { throw .notEnrolled }
        if session.state == .checkedOut { endSession() }
        // The wipe takes the device out of management, and with it the shared mode that
        // Authenticator was put in: MSAL's account goes too.
        let effects = broker.account != nil ? signOutAccount(posting: true) : []
        session = Session(state: .unenrolled, user: nil, generation: session.generation)
        staging = nil
        assignedUser = nil
        locked = false
        return effects
    }

    // MARK: - Broker1

    /// The broker's home account id for a user.
    public static func homeAccountID(of user: String) -> String { "\(user).sdlab-tenant" }
    /// The cloud environment the broker's accounts live in.
    public static let environment = "login.sdlab.test"

    /// MSAL's signed-in account's user.
    public var currentAccount: String? { broker.account }

    /// Whom an app of `sdk` follows, and the generation of its latest change: MSAL's account
    /// (the session's user unless Authenticator is the broker), or Workspace ONE's session.
    public func followed(by sdk: SDKKind) -> (user: String?, generation: UInt64) {
        sdk.listensToPosts ? (currentAccount, broker.generation) : (session.checkedOutUser, session.generation)
    }

    /// Global sign-in from an app: with the Hub as broker, the same event as a check-out.
    public mutating func signIn(as user: DirectoryUser?) throws(DeviceError) -> [Effect] {
        guard currentAccount == nil else { throw .alreadySignedIn }
        guard let user else { throw .badCredentials }
        guard online else { throw .offline }
        guard session.state != .unenrolled else { throw .notEnrolled }
        if policy.broker == .hub { beginSession(user) }
        return signInAccount(user.name)
    }

    /// Global sign-out from an app: with the Hub as broker, the same event as a check-in.
    public mutating func signOut(homeAccountID: String) throws(DeviceError) -> [Effect] {
        try requireAccount(homeAccountID)
        guard isShared else { throw .notShared }
        if policy.broker == .hub { endSession() }
        return signOutAccount(posting: true)
    }

    /// The account removed outside any app (with the Hub as broker, the session ends with
    /// it): no post.
    public mutating func removeAccount() throws(DeviceError) {
        guard currentAccount != nil else { throw .noCurrentAccount }
        if policy.broker == .hub { endSession() }
        _ = signOutAccount(posting: false)
    }

    /// A token bound to the generation of the account's sign-in: a request for an account that
    /// has signed out (or been replaced) fails instead of returning a stale token.
    public func acquireTokenSilent(homeAccountID: String) throws(DeviceError) -> (token: String, generation: UInt64) {
        try requireAccount(homeAccountID)
        return ("sdlab-token.\(currentAccount ?? "").\(broker.generation)", broker.generation)
    }

    /// Whether a token still belongs to the account's current sign-in.
    public func isCurrent(tokenGeneration: UInt64) -> Bool {
        currentAccount != nil && tokenGeneration == broker.generation
    }

    // MARK: - KeyService1

    /// The checked-out user's key for `external` records (Docs/behaviour.md §8), from the console, so
    /// only online; `makeKey` gives a new random key the first time a user asks.
    public mutating func externalKey(makeKey: () -> [UInt8]) throws(DeviceError) -> (user: String, key: [UInt8]) {
        guard online else { throw .offline }
        guard let user = session.checkedOutUser else { throw .notCheckedOut }
        if externalKeys[user] == nil { externalKeys[user] = makeKey() }
        return (user, externalKeys[user]!)
    }

    // MARK: - Notify1 state and registrations (Docs/behaviour.md §3)

    public mutating func setNotifyState(of name: String, to value: UInt64) { notify.setState(of: name, to: value) }

    public mutating func registerNotify(_ name: String, by holder: String) { notify.register(name, by: holder) }

    public mutating func cancelNotify(_ name: String, by holder: String) { notify.cancel(name, by: holder) }

    /// A client left the bus: its registrations go, and the states only it held.
    public mutating func releaseNotify(heldBy holder: String) { notify.release(holder) }

    /// The model as the hub saves it: the notification center's registrations, and the states
    /// of names only processes hold, do not outlive the hub process.
    public var saved: HubModel {
        var model = self
        model.notify = notify.saved
        return model
    }

    // MARK: - Session changes

    private func requireAccount(_ homeAccountID: String) throws(DeviceError) {
        guard let account = currentAccount else { throw .noCurrentAccount }
        guard Self.homeAccountID(of: account).lowercased() == homeAccountID.lowercased() else { throw .accountMismatch }
    }

    /// The generation of a change: one more than any before, the session's or the account's,
    /// so that every change of the device has a number of its own.
    private var nextGeneration: UInt64 { max(session.generation, broker.generation) + 1 }

    private mutating func beginSession(_ user: DirectoryUser) {
        if staging == .singleUser, assignedUser == nil { assignedUser = user.name }
        session = Session(state: .checkedOut, user: user.name, generation: nextGeneration)
        checkedOutUser = user
        passcodeSet = policy.passcode
    }

    private mutating func endSession() {
        session = Session(state: .checkedIn, user: nil, generation: nextGeneration)
        checkedOutUser = nil
        passcodeSet = false
    }

    /// The account signed in; with the Hub as broker, in the change that began the session.
    private mutating func signInAccount(_ user: String) -> [Effect] {
        broker = BrokerSession(account: user, generation: policy.broker == .hub ? session.generation : nextGeneration)
        return policy.broadcastOnSignIn ? announce() : []
    }

    private mutating func signOutAccount(posting: Bool) -> [Effect] {
        broker = BrokerSession(account: nil, generation: policy.broker == .hub ? session.generation : nextGeneration)
        return posting ? announce() : []
    }

    /// The iOS broker sets the state to the new generation, then posts; the Android broker sends
    /// its broadcast (Docs/behaviour.md §2).
    private mutating func announce() -> [Effect] {
        notify.setState(of: NotifyCenter.accountChanged, to: broker.generation)
        return [
            .post(name: NotifyCenter.accountChanged, state: broker.generation),
            .broadcast(action: AndroidBroker.accountChangedAction),
        ]
    }
}
