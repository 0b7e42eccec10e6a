import Foundation
import Testing

/// Persistent references, as keychain wrappers use them: `allKeys` asks for data, attributes and
/// persistent references of every item at once, and an item is found and deleted by its reference.
@Suite struct PersistentReferenceTests {
    let service = "com.contoso.persistent." + UUID().uuidString

    init() { _ = TestKeychain.folder }

    private func add(_ account: String, _ secret: String) -> OSStatus {
        SecItemAdd(
            [
                kSecClass: kSecClassGenericPassword, kSecAttrService: service, kSecAttrAccount: account,
                kSecValueData: Data(secret.utf8),
            ] as CFDictionary, nil)
    }

    @Test func everyItemComesWithAReferenceThatFindsItAgain() throws {
        #expect(add("cou1", "first") == errSecSuccess)
        #expect(add("cou2", "second") == errSecSuccess)
        var result: CFTypeRef?
        let all: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecReturnData as String: true, kSecReturnAttributes as String: true,
            kSecReturnPersistentRef as String: true, kSecMatchLimit as String: kSecMatchLimitAll,
        ]
        #expect(SecItemCopyMatching(all as CFDictionary, &result) == errSecSuccess)
        let items = try #require(result as? [[String: Any]])
        #expect(items.compactMap { $0[kSecAttrAccount as String] as? String }.sorted() == ["cou1", "cou2"])
        let first = try #require(items.first { $0[kSecAttrAccount as String] as? String == "cou1" })
        let reference = try #require(first[kSecValuePersistentRef as String] as? Data)

        var found: CFTypeRef?
        let byReference: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecValuePersistentRef as String: reference,
            kSecReturnData as String: true,
        ]
        #expect(SecItemCopyMatching(byReference as CFDictionary, &found) == errSecSuccess)
        #expect((found as? Data).map { String(decoding: $0, as: UTF8.self) } == "first")
        #expect(SecItemDelete(byReference as CFDictionary) == errSecSuccess)
        #expect(SecItemCopyMatching(byReference as CFDictionary, &found) == errSecItemNotFound)
        let rest: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
        #expect(SecItemDelete(rest as CFDictionary) == errSecSuccess)
    }
}
