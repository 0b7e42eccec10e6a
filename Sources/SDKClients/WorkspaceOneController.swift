import Crypto
import DBusKit
import DeviceContract
import SharedDevice

/// What a Workspace ONE app implements to hear from the SDK (Docs/behaviour.md §6).
public protocol WorkspaceOneControllerDelegate: Sendable {
    /// controllerDidWipeCurrentUserData: the session the app knew has ended. The SDK has
    /// already deleted its data-encryption keys.
    func controllerDidWipeCurrentUserData() async
    /// controllerDidDetectUserChange: another session began (the user's identity is not
    /// available yet).
    func controllerDidDetectUserChange() async
    /// controllerDidFinishInitialCheck, with `sharedDeviceNotCheckedOut` when the device is checked in.
    func controllerDidFinishInitialCheck(error: String?) async
}

/// The Workspace ONE SDK inside an app: it hears no broadcast and detects session changes
/// only when the app starts (`start`) and when it returns to the foreground. The last session
/// it saw lives in the app's keychain.
public actor WorkspaceOneController {
    /// The SDK's data-encryption key in the app's keychain (for `sensitive` records).
    public static let dataKeyName = "ws1-sdk-data"
    /// The SDK's folder in the app's keychain folder (`DeviceLink.keychainFolder`).
    public static func keychainFolder(in appKeychain: String) -> String { appKeychain + "/awsdk" }
    static let item = "ws1-last-session"

    private let hub: HubCalls
    private let keychain: Keychain
    private let delegate: (any WorkspaceOneControllerDelegate)?
    private var sdk: WorkspaceOneSessionRule
    private var lastSession: KeychainRecord<Session?>
    /// The data key is to be deleted (a `wipe` whose deletion failed).
    private var keyToDelete = false

    public init(
        connection: Connection, keychain: Keychain, delegate: (any WorkspaceOneControllerDelegate)? = nil,
        hub address: HubAddress = .wellKnown, timeout: Duration = .seconds(5)
    ) {
        hub = HubCalls(connection: connection, address: address, timeout: timeout)
        self.keychain = keychain
        self.delegate = delegate
        let saved = keychain.item(Self.item, as: Session?.self) ?? nil
        lastSession = KeychainRecord(Self.item, holding: saved)
        sdk = WorkspaceOneSessionRule(lastSession: saved)
    }

    /// One detection: what the SDK did, and the session the hub answered (nil: it did not,
    /// and nothing changed).
    public struct Detection: Sendable {
        public var effects: [WorkspaceOneSessionRule.Effect]
        public var session: Session?
        /// The SDK looked: false for a return to the foreground of an app that is not
        /// initialised or is blocked, which is no detection opportunity (Docs/behaviour.md §6).
        public var taken = true
        /// The keychain could not be written; the SDK acted anyway and writes again next time.
        public var keychainFailure: String? = nil
    }

    /// SDK initialisation at a cold start.
    public func start() async -> Detection { await detect(.coldStart) }

    /// The app returned to the foreground.
    public func applicationWillEnterForeground() async -> Detection { await detect(.returnToForeground) }

    /// The UI is blocked until the app is launched again.
    public var isBlocked: Bool { sdk.blocked }

    /// The SDK's data-encryption key, made on first use (never the key of a session that ended).
    public func dataKey() throws -> SymmetricKey {
        try writeKeychain()
        return try keychain.key(Self.dataKeyName)
    }

    /// isDeviceStagingEnabled: whether the device is enrolled as shared.
    public func isDeviceStagingEnabled() async throws -> Bool { try await hub.isShared() }

    /// The checked-out user's identity (userName, groupID, email, firstName, lastName,
    /// domain, userIdentifier); available only once initialisation succeeded.
    public func userInformation() async throws -> [String: String] {
        guard sdk.initialised, !sdk.blocked else { throw DeviceError.notInitialised.dbusError }
        return DirectoryUser.fields(wire: try await hub.call(HubMethod.getUserInfo).first)
    }

    /// Deletes the keys before anything else, saves the session it saw, then tells the delegate.
    /// A keychain that cannot be written (a full disk) does not hold the callbacks back: the
    /// ended session's data would stay on show. The SDK acts on what it saw, reports the
    /// failure, and writes again at the next opportunity.
    private func detect(_ opportunity: WorkspaceOneSessionRule.Opportunity) async -> Detection {
        guard sdk.takes(opportunity) else { return Detection(effects: [], session: nil, taken: false) }
        let session = await hub.session()
        let effects = sdk.detect(opportunity, hub: session)
        if effects.contains(.deleteDataKeys) { keyToDelete = true }
        let keychainFailure = whyFailed { try writeKeychain() }
        for case .callback(let callback) in effects {
            switch callback {
            case .wipe: await delegate?.controllerDidWipeCurrentUserData()
            case .userChanged: await delegate?.controllerDidDetectUserChange()
            case .initialCheck(let error): await delegate?.controllerDidFinishInitialCheck(error: error)
            }
        }
        return Detection(effects: effects, session: session, keychainFailure: keychainFailure)
    }

    /// Writes what the keychain does not hold yet: the key's deletion, then the session seen.
    private func writeKeychain() throws {
        if keyToDelete {
            try keychain.deleteKey(Self.dataKeyName)
            keyToDelete = false
        }
        try lastSession.write(sdk.lastSession, to: keychain)
    }
}

/// What the SDK asks the Hub outside a detection, without the app's keychain: whom the device
/// is checked out to (`updateUserCredentials`), and whether it is shared and assigned
/// (`fetchApplicationAssignmentStatus`).
public struct WorkspaceOneHub: Sendable {
    let hub: HubCalls

    public init(connection: Connection, hub address: HubAddress = .wellKnown, timeout: Duration = .seconds(5)) {
        hub = HubCalls(connection: connection, address: address, timeout: timeout)
    }

    /// Whom the SDK's credentials are for, as the Hub's session says.
    public enum Checkout: Sendable, Equatable {
        /// Checked out to this user.
        case user(String)
        /// Checked in, or not enrolled: nobody's credentials.
        case nobody

        /// The user checked out; nil for nobody.
        public var user: String? {
            if case .user(let user) = self { user } else { nil }
        }
    }

    /// Whom the device is checked out to; nil when the Hub did not answer.
    public func checkout() async -> Checkout? {
        guard let session = await hub.session() else { return nil }
        return session.checkedOutUser.map(Checkout.user) ?? .nobody
    }

    /// Whether the device is shared (staging enabled), and its session (nil: an answer that is
    /// no session). Throws the bus's error when the Hub could not be asked.
    public func assignment() async throws -> (stagingEnabled: Bool, session: Session?) {
        (try await hub.isShared(), try await hub.answeredSession())
    }
}
