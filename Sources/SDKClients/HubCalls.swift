import DBusKit
import DeviceContract
import SharedDevice

/// Error names the simulated SDKs report besides the hub's own and the broker's (`BrokerError`).
public enum SDKErrors {
    /// The SDK's state could not be written to the app's keychain.
    public static let keychainFailure = "keychainFailure"
}

/// Calls from an app's SDK to the hub, each bounded: a hub that does not answer in time
/// counts as unreachable, and the SDK then changes nothing.
struct HubCalls: Sendable {
    let connection: Connection
    let address: HubAddress
    let timeout: Duration

    func call<Method: HubMember>(_ method: Method, _ arguments: [DBusValue] = []) async throws -> [DBusValue] {
        try await connection.callHub(method, arguments, at: address, timeout: timeout)
    }

    /// The broker's accounts (`GetAccounts`), or why it could not be asked.
    func accounts() async throws(CancellationError) -> Result<[BrokerAccount], BrokerError> {
        do {
            return Self.accounts(in: .success(try await call(BrokerMethod.getAccounts)))
        } catch let error as CancellationError {
            throw error
        } catch {
            return Self.accounts(in: .failure(error))
        }
    }

    /// `accounts()` without a task: `reply` runs on the connection's owner thread.
    func accounts(reply: @escaping @Sendable (Result<[BrokerAccount], BrokerError>) -> Void) {
        connection.callHub(BrokerMethod.getAccounts, at: address, timeout: timeout) { reply(Self.accounts(in: $0)) }
    }

    /// The accounts a `GetAccounts` outcome holds, or why there are none to be had.
    private static func accounts(in outcome: Result<[DBusValue], any Error>) -> Result<[BrokerAccount], BrokerError> {
        switch outcome {
        case .success(let values):
            let list = values.first?.items ?? []
            let accounts = list.compactMap(BrokerAccount.init(wire:))
            // An answer with an account that is no account (a user name that is not one): an
            // error, so that nothing changes, rather than an account dropped.
            return accounts.count == list.count ? .success(accounts) : .failure(.accountThatIsNone)
        case .failure(let error as DBusError) where error.isNoAnswer:
            return .failure(.unreachable)
        case .failure(let error as DBusError):
            return .failure(DeviceError(error).map(BrokerError.refused) ?? .invalidAnswer(String(error.shortName)))
        case .failure:
            return .failure(.unreachable)
        }
    }

    /// The hub's session (`GetSession`), or nil when the hub did not answer.
    func session() async -> Session? { try? await answeredSession() }

    /// The hub's session (nil: an answer that is no session); throws the bus's error when the
    /// hub could not be asked.
    func answeredSession() async throws -> Session? { Session(wire: try await call(HubMethod.getSession).first) }

    /// Whether the device is enrolled as shared (staging enabled).
    func isShared() async throws -> Bool {
        try await connection.hubProperty(.shared, at: address, timeout: timeout)?.bool ?? false
    }
}
