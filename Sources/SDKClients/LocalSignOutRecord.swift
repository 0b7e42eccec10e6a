import DBusKit
import DeviceContract
import SharedDevice

/// The account an app signed out of on a personal device (`LocalSignOut`), as the app's MSAL
/// keeps it in its keychain: it outlives the process, as the app's own cache does on the phone.
struct LocalSignOutRecord: Sendable {
    private(set) var value: LocalSignOut
    private var record: KeychainRecord<LocalSignOut>

    init(_ item: String, in keychain: Keychain) {
        value = keychain.item(item, as: LocalSignOut.self) ?? LocalSignOut()
        record = KeychainRecord(item, holding: value)
    }

    /// Changes the value and writes it; returns why the write failed, if it did (the value is
    /// kept in memory and written at the next change).
    mutating func change(_ body: (inout LocalSignOut) -> Void, in keychain: Keychain) -> String? {
        body(&value)
        let value = value
        return whyFailed { try record.write(value, to: keychain) }
    }
}

extension Broker {
    /// Whether the device is in shared device mode, and so an app's sign-out global
    /// (Docs/behaviour.md §2); a hub that does not answer is `HubUnreachable`, as the broker's
    /// other calls tell it.
    func signOutIsGlobal() async throws -> Bool {
        do {
            return try await isSharedDevice()
        } catch let error as DBusError where error.isNoAnswer {
            throw DBusError.device(BrokerError.unreachable.label)
        }
    }

    /// The app's own sign-in as `user`: an account this app signed out of on a personal device
    /// and the broker still holds comes back without the broker asked, as its single sign-on
    /// gives it; else the broker's global sign-in.
    func signIn(_ user: String, _ password: String, after local: LocalSignOut) async throws -> BrokerAccount {
        if let forgotten = local.account, forgotten.username == user,
            case .success(let accounts) = try await hub.accounts(), accounts.contains(where: forgotten.isSameAccount)
        {
            return forgotten
        }
        return try await signIn(user, password)
    }
}
