import DBusKit
import DeviceContract
import SharedDevice
import SharedDeviceSDK

/// One SDK as the app embeds it (Docs/behaviour.md §4–§6): how it checks the account, hears posts,
/// keeps its data key and signs in and out. The only place the app's code depends on which SDK it has.
protocol EmbeddedSDK: Sendable {
    /// MSAL apps hear the broker's posts; Workspace ONE apps never do.
    var listensToPosts: Bool { get }
    /// The keychain key of the app's `sensitive` records.
    var dataKeyName: String { get }
    /// Asks the SDK; calls `answered` as soon as the hub's answer is in (or none will come).
    /// Throws when the SDK could not answer; nothing changed then.
    func check(_ trigger: CheckTrigger, answered: () -> Void) async throws(MSALError) -> CheckResult
    /// Calls `handler` for every post of the account-change notification (MSAL only).
    func observePosts(_ handler: @escaping @Sendable (ReceivedPost) -> Void) async throws
    func signIn(user: String, password: String) async throws -> BrokerAccount
    func signOut() async throws
}

/// The SDK an app of `kind` embeds, on `connection`, keeping its state in `keychain`.
func embeddedSDK(
    _ kind: SDKKind, connection: Connection, clientID: String, keychain: Keychain,
    hub: HubAddress, timeout: Duration
) -> any EmbeddedSDK {
    switch kind {
    case .msal:
        MSALiOS(
            client: MSALPublicClient(
                connection: connection, clientID: clientID, keychain: keychain, hub: hub, timeout: timeout))
    case .msalAndroid:
        MSALAndroid(
            client: AndroidMSALPublicClient(
                connection: connection, clientID: clientID, keychain: keychain, hub: hub, timeout: timeout))
    case .ws1:
        WorkspaceOne(
            controller: WorkspaceOneController(connection: connection, keychain: keychain, hub: hub, timeout: timeout))
    }
}

extension EmbeddedSDK {
    var listensToPosts: Bool { true }
    /// An MSAL app's own key.
    var dataKeyName: String { "app-data" }
}

/// What both MSAL flavours offer an app besides their account check: the broker's posts and
/// global sign-in and sign-out.
protocol MSALBroker: Sendable {
    func observeAccountChanges(_ handler: @escaping @Sendable (ReceivedPost) -> Void) async throws -> SignalSubscription
    func signIn(user: String, password: String) async throws -> BrokerAccount
    func signOut() async throws
}

extension MSALPublicClient: MSALBroker {}
extension AndroidMSALPublicClient: MSALBroker {}

/// An MSAL flavour in an app: everything but the check is the broker's.
protocol MSALFlavour: EmbeddedSDK {
    associatedtype Client: MSALBroker
    var client: Client { get }
}

extension MSALFlavour {
    func observePosts(_ handler: @escaping @Sendable (ReceivedPost) -> Void) async throws {
        _ = try await client.observeAccountChanges(handler)
    }

    func signIn(user: String, password: String) async throws -> BrokerAccount {
        try await client.signIn(user: user, password: password)
    }

    func signOut() async throws { try await client.signOut() }
}

/// MSAL, iOS flavour (Docs/behaviour.md §4): `current-account(CURRENT,PREVIOUS)` at every check.
private struct MSALiOS: MSALFlavour {
    let client: MSALPublicClient

    func check(_ trigger: CheckTrigger, answered: () -> Void) async throws(MSALError) -> CheckResult {
        let answer = try? await client.getCurrentAccount()
        answered()
        // Cancelled before anything was asked: no opportunity.
        guard let answer else { return .noOpportunity }
        var result = CheckResult(try answer.get())
        result.keychainFailure = await client.keychainFailure
        return result
    }
}

/// MSAL, Android flavour (Docs/behaviour.md §5): `account-changed` when the account changed,
/// then `account-loaded`.
private struct MSALAndroid: MSALFlavour {
    let client: AndroidMSALPublicClient

    func check(_ trigger: CheckTrigger, answered: () -> Void) async throws(MSALError) -> CheckResult {
        let answer = try? await client.getCurrentAccount()
        answered()
        // Cancelled before anything was asked: no opportunity.
        guard let answer else { return .noOpportunity }
        var result = CheckResult(try answer.get())
        result.keychainFailure = await client.keychainFailure
        return result
    }
}

/// Workspace ONE (Docs/behaviour.md §6): looks only at a cold start and at a return to the foreground; never
/// hears a post; its SDK holds the data key and deletes it before `wipe`.
private struct WorkspaceOne: EmbeddedSDK {
    let controller: WorkspaceOneController

    var listensToPosts: Bool { false }
    var dataKeyName: String { WorkspaceOneController.dataKeyName }

    func check(_ trigger: CheckTrigger, answered: () -> Void) async -> CheckResult {
        let detection: WorkspaceOneController.Detection
        switch trigger {
        case .launch: detection = await controller.start()
        case .foreground: detection = await controller.applicationWillEnterForeground()
        default:
            answered()
            return .noOpportunity
        }
        answered()
        guard detection.taken else { return .noOpportunity }
        var result = CheckResult(detection.effects, session: detection.session)
        result.keychainFailure = detection.keychainFailure
        return result
    }

    func observePosts(_ handler: @escaping @Sendable (ReceivedPost) -> Void) async throws {}
    func signIn(user: String, password: String) async throws -> BrokerAccount { throw AppError.notSupported.dbusError }
    func signOut() async throws { throw AppError.notSupported.dbusError }
}
