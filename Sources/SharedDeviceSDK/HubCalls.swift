import DBusKit
import Hub
import SharedDevice

/// Error names the simulated SDKs report besides the hub's own.
public enum SDKErrors {
    /// The hub did not answer (gone, or not in time): nothing changed.
    public static let hubUnreachable = WorkspaceOneSDK.hubUnreachableError
}

/// Calls from an app's SDK to the hub, each bounded: a hub that does not answer in time
/// counts as unreachable, and the SDK then changes nothing.
struct HubCalls: Sendable {
    let connection: Connection
    let timeout: Duration

    func call(_ interface: String, _ member: String, _ arguments: [DBusValue] = []) async throws(DBusError) -> [DBusValue] {
        try await connection.callHub(interface, member, arguments, timeout: timeout)
    }

    /// The broker's accounts (`GetAccounts`), or why it could not be asked.
    func accounts() async -> Result<[BrokerAccount], MSALError> {
        do throws(DBusError) {
            let list = try await call(DeviceBus.brokerInterface, "GetAccounts").first?.items ?? []
            return .success(list.compactMap { item in
                guard let fields = item.stringKeyed, let id = fields["homeAccountId"]?.variant?.string,
                      let username = fields["username"]?.variant?.string else { return nil }
                return BrokerAccount(homeAccountID: id, username: username)
            })
        } catch {
            return .failure(.broker(Self.isUnreachable(error) ? Self.unreachable : String(error.shortName)))
        }
    }

    static let unreachable = SDKErrors.hubUnreachable

    /// The bus's own errors for a hub that is gone or does not answer.
    static func isUnreachable(_ error: DBusError) -> Bool {
        ["ServiceUnknown", "NameHasNoOwner", "NoReply", "Disconnected", "Timeout"].contains(String(error.shortName))
    }

    /// The hub's session (`GetSession`), or nil when the hub did not answer.
    func session() async -> Session? {
        (try? await call(DeviceBus.hubInterface, "GetSession")).flatMap(DeviceBus.session(from:))
    }
}
