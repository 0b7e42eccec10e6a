import Crypto
import DeviceContract
@_spi(BuiltIn) import DeviceHost
import FacadeCore
import SDKClients
import SharedDevice

/// The current user's key of `external` records (Docs/behaviour.md §8): fetched from the
/// hub's key service, held in memory only, so a relaunch fetches it again and a cleanup that
/// forgets it leaves the records unreadable. Used on the main queue only.
@MainActor
final class ExternalKeys {
    private let host: DeviceHost
    private var held: (user: String, key: SymmetricKey)?
    /// Users whose container was looked through for `external` records since launch.
    private var lookedUp: Set<String> = []

    init(host: DeviceHost) { self.host = host }

    /// The key of `user`, if it is held.
    func held(for user: String?) -> SymmetricKey? { held?.user == user ? held?.key : nil }

    func forget() {
        held = nil
        lookedUp = []
    }

    /// The key of `user`, from the key service unless it is held.
    func key(for user: String) async throws -> SymmetricKey {
        if let key = held(for: user) { return key }
        guard let link = DeviceLink.current else { throw DeviceError.notSupported.dbusError }
        let served = try await KeyServiceClient(connection: link.connection, hub: link.hub, timeout: link.hubTimeout)
            .currentUserKey()
        guard served.user == user else { throw DeviceError.accountMismatch.dbusError }
        held = served
        host.note(.externalKeyFetched, [.user: .string(served.user)])
        return served.key
    }

    /// After a relaunch the in-memory key is gone: fetch it again when the user has `external`
    /// records. The container is looked through once per user: later records are written by
    /// this process, which fetches the key to write them.
    func fetchIfNeeded(for user: String?, in container: Container) async {
        guard let user, held?.user != user, lookedUp.insert(user).inserted,
            container.hasRecords(.external, of: user)
        else { return }
        _ = try? await key(for: user)
    }
}
