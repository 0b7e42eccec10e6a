import Foundation

/// A team's keychain helper, written as iOS keychain wrappers are: generic passwords of one
/// service, each under an account, through the SecItem calls and nothing else.
final class SecretStore {
    enum StoreError: Error, Equatable {
        case unexpectedStatus(OSStatus)
        case notData
    }

    let service: String
    let accessGroup: String?

    init(service: String, accessGroup: String? = nil) {
        self.service = service
        self.accessGroup = accessGroup
    }

    /// Stores `value` under `account`, replacing what was there.
    func set(_ value: Data, for account: String, accessible: CFString = kSecAttrAccessibleAfterFirstUnlock) throws {
        var query = baseQuery(account)
        let status = SecItemCopyMatching(query as CFDictionary, nil)
        switch status {
        case errSecSuccess:
            let changes: [String: Any] = [kSecValueData as String: value, kSecAttrAccessible as String: accessible]
            try check(SecItemUpdate(query as CFDictionary, changes as CFDictionary))
        case errSecItemNotFound:
            query[kSecValueData as String] = value
            query[kSecAttrAccessible as String] = accessible
            try check(SecItemAdd(query as CFDictionary, nil))
        default:
            throw StoreError.unexpectedStatus(status)
        }
    }

    func set(_ value: String, for account: String) throws {
        try set(Data(value.utf8), for: account)
    }

    /// Stores `value` so that reading it asks for the user's presence (on a phone).
    func setProtected(_ value: Data, for account: String) throws {
        var error: Unmanaged<CFError>?
        guard
            let access = SecAccessControlCreateWithFlags(
                kCFAllocatorDefault, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, .userPresence, &error)
        else {
            throw error!.takeRetainedValue() as Error
        }
        var query = baseQuery(account)
        query[kSecAttrAccessControl as String] = access
        query[kSecValueData as String] = value
        let status = SecItemAdd(query as CFDictionary, nil)
        if status == errSecDuplicateItem {
            try remove(account)
            try check(SecItemAdd(query as CFDictionary, nil))
        } else {
            try check(status)
        }
    }

    /// What is stored under `account`, or nil.
    func data(for account: String, prompt: String? = nil) throws -> Data? {
        var query = baseQuery(account)
        query[kSecReturnData as String] = kCFBooleanTrue
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        if let prompt { query[kSecUseOperationPrompt as String] = prompt }
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        try check(status)
        guard let data = result as? Data else { throw StoreError.notData }
        return data
    }

    func string(for account: String) throws -> String? {
        try data(for: account).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The accounts of every item of the service.
    func allAccounts() throws -> [String] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecReturnAttributes as String: true,
            kSecMatchLimit as String: kSecMatchLimitAll,
        ]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        var result: AnyObject?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return [] }
        try check(status)
        let items = result as? [[String: Any]] ?? []
        return items.compactMap { $0[kSecAttrAccount as String] as? String }.sorted()
    }

    func remove(_ account: String) throws {
        let status = SecItemDelete(baseQuery(account) as CFDictionary)
        guard status == noErr || status == errSecItemNotFound else { throw StoreError.unexpectedStatus(status) }
    }

    /// Removes every item of the service: what a sign-out on a shared device must do.
    func removeAll() throws {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        let status = SecItemDelete(query as CFDictionary)
        guard status == noErr || status == errSecItemNotFound else { throw StoreError.unexpectedStatus(status) }
    }

    private func baseQuery(_ account: String) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }

    private func check(_ status: OSStatus) throws {
        guard status == errSecSuccess else {
            throw StoreError.unexpectedStatus(status)
        }
    }
}
