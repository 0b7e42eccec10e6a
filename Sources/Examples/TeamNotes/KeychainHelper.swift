import Foundation

/// The app's generic passwords of one service in the keychain.
struct KeychainHelper {
    let service: String

    enum KeychainError: Error {
        case unhandled(OSStatus)
    }

    /// Stores `data` for `account`, replacing what was there.
    func set(_ data: Data, account: String, label: String) throws {
        var query = baseQuery
        query[kSecAttrAccount as String] = account
        SecItemDelete(query as CFDictionary)
        query[kSecAttrLabel as String] = label
        query[kSecValueData as String] = data
        query[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        let status = SecItemAdd(query as CFDictionary, nil)
        guard status == errSecSuccess else { throw KeychainError.unhandled(status) }
    }

    /// The data stored for `account`, if any.
    func data(account: String) -> Data? {
        var query = baseQuery
        query[kSecAttrAccount as String] = account
        query[kSecReturnData as String] = kCFBooleanTrue
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == noErr else { return nil }
        return result as? Data
    }

    /// Removes every item labelled `label`.
    func removeAll(label: String) {
        var query = baseQuery
        query[kSecAttrLabel as String] = label
        SecItemDelete(query as CFDictionary)
    }

    private var baseQuery: [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
    }
}
