import Crypto
import DBusKit
import DeviceContract

/// The hub's key service, as an app that keeps `external` records asks it: the current user's
/// key, which the app holds in memory only (Docs/behaviour.md §8).
public struct KeyServiceClient: Sendable {
    let hub: HubCalls

    public init(connection: Connection, hub address: HubAddress = .wellKnown, timeout: Duration = .seconds(5)) {
        hub = HubCalls(connection: connection, address: address, timeout: timeout)
    }

    /// The key the service holds for the user signed in now.
    public func currentUserKey() async throws -> (user: String, key: SymmetricKey) {
        guard let served = UserKey(wire: try await hub.call(KeyServiceMethod.getUserKey).first) else {
            throw DBusError.failed("the key service answered no key")
        }
        return (served.user, SymmetricKey(data: served.key))
    }
}
