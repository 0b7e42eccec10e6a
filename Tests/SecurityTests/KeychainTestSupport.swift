import Foundation
import Testing

@testable import Security

/// A keychain in a new temporary folder, removed with it.
final class TemporaryKeychain: Sendable {
    private let root: String
    /// The keychain's folder, made by its first save.
    let folder: String
    let store: KeychainStore

    init() {
        root = NSTemporaryDirectory() + "security-tests-" + UUID().uuidString
        folder = root + "/keychain"
        store = KeychainStore(folder: folder, defaultAccessGroup: "com.contoso.notes")
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// A keychain holding `Seed.items`.
    static func seeded() throws -> TemporaryKeychain {
        let keychain = TemporaryKeychain()
        for item in Seed.items { try #require(keychain.store.addItem(item) == errSecSuccess) }
        return keychain
    }
}

/// The items of a seeded keychain: two accounts in one access group, one of them again in
/// another group, and an internet password.
enum Seed {
    static let service = "com.contoso.notes"

    static var items: [[String: Any]] {
        [
            password("token", group: "group.a", [kSecValueData as String: Data("secret".utf8)]),
            password("refresh", group: "group.a", [kSecValueData as String: Data("refresh".utf8)]),
            password("token", group: "group.b", [kSecValueData as String: Data("other".utf8)]),
            internetPassword(port: 443, [kSecValueData as String: Data("pw".utf8)]),
        ]
    }

    /// A generic password's dictionary of `Seed.service`, with `extra` keys.
    static func password(_ account: String, group: String? = nil, _ extra: [String: Any] = [:]) -> [String: Any] {
        var dictionary: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
        if let group { dictionary[kSecAttrAccessGroup as String] = group }
        return dictionary.merging(extra) { _, new in new }
    }

    static func internetPassword(port: Int, _ extra: [String: Any] = [:]) -> [String: Any] {
        let dictionary: [String: Any] = [
            kSecClass as String: kSecClassInternetPassword,
            kSecAttrServer as String: "contoso.com",
            kSecAttrAccount as String: "ann",
            kSecAttrProtocol as String: kSecAttrProtocolHTTPS,
            kSecAttrPort as String: port,
        ]
        return dictionary.merging(extra) { _, new in new }
    }
}

/// The SecItem calls with Swift dictionaries, as an app's code makes them.
extension KeychainStore {
    func addItem(_ attributes: [String: Any]) -> OSStatus { add(attributes as CFDictionary, nil) }

    func find(_ query: [String: Any]) -> (status: OSStatus, result: CFTypeRef?) {
        var result: CFTypeRef?
        let status = copyMatching(query as CFDictionary, &result)
        return (status, result)
    }

    func updateItems(_ query: [String: Any], _ changes: [String: Any]) -> OSStatus {
        update(query as CFDictionary, changes as CFDictionary)
    }

    func deleteItems(_ query: [String: Any]) -> OSStatus { delete(query as CFDictionary) }

    /// The secret of the item the query finds, nil when none.
    func secret(_ query: [String: Any]) -> String? {
        let found = find(query.merging([kSecReturnData as String: true]) { _, new in new })
        return (found.result as? Data).map { String(decoding: $0, as: UTF8.self) }
    }

    /// How many items the query finds.
    func count(_ query: [String: Any]) -> Int {
        let all: [String: Any] = [kSecReturnAttributes as String: true, kSecMatchLimit as String: kSecMatchLimitAll]
        return (find(query.merging(all) { _, new in new }).result as? [Any])?.count ?? 0
    }
}
