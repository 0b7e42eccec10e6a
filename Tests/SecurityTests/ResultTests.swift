import Foundation
import Testing

@testable import Security

/// What SecItemCopyMatching and SecItemAdd hand back, by the `kSecReturn…` keys and the limit.
@Suite("SecItem results")
struct ResultTests {
    private let all: [String: Any] = [kSecMatchLimit as String: kSecMatchLimitAll]
    private let data: [String: Any] = [kSecReturnData as String: true]
    private let attributes: [String: Any] = [kSecReturnAttributes as String: true]

    @Test func noReturnKeyGivesNoResult() throws {
        let keychain = try TemporaryKeychain.seeded()
        let found = keychain.store.find(Seed.password("token"))
        #expect(found.status == errSecSuccess)
        #expect(found.result == nil)
    }

    @Test func returnDataWithLimitOneGivesTheData() throws {
        let keychain = try TemporaryKeychain.seeded()
        let found = keychain.store.find(Seed.password("token", group: "group.b", data))
        #expect(found.status == errSecSuccess)
        #expect(found.result as? Data == Data("other".utf8))
    }

    @Test func returnDataWithLimitAllGivesAnArrayOfData() throws {
        let keychain = try TemporaryKeychain.seeded()
        let found = keychain.store.find(Seed.password("token", data.merging(all) { $1 }))
        #expect(found.result is NSArray)
        let secrets = (found.result as? [Data])?.map { String(decoding: $0, as: UTF8.self) }
        #expect(secrets == ["secret", "other"])
    }

    @Test func limitAllGivesAnArrayEvenOfOne() throws {
        let keychain = try TemporaryKeychain.seeded()
        let found = keychain.store.find(Seed.password("refresh", data.merging(all) { $1 }))
        #expect((found.result as? [Data])?.count == 1)
    }

    @Test func aNumericLimitCutsTheResults() throws {
        let keychain = try TemporaryKeychain.seeded()
        let query = Seed.password("token", data.merging([kSecMatchLimit as String: 1]) { $1 })
        #expect(keychain.store.find(query).result as? Data == Data("secret".utf8))
        let two: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: 2, kSecReturnData as String: true,
        ]
        #expect((keychain.store.find(two).result as? [Data])?.count == 2)
    }

    @Test func returnAttributesGivesTheItemsAttributes() throws {
        let keychain = try TemporaryKeychain.seeded()
        let found = keychain.store.find(Seed.password("refresh", attributes))
        let item = try #require(found.result as? [String: Any])
        #expect(item[kSecClass as String] as? String == "genp")
        #expect(item[kSecAttrService as String] as? String == Seed.service)
        #expect(item[kSecAttrAccount as String] as? String == "refresh")
        #expect(item[kSecAttrAccessGroup as String] as? String == "group.a")
        #expect(item[kSecAttrAccessible as String] as? String == kSecAttrAccessibleWhenUnlocked as String)
        #expect(item[kSecAttrSynchronizable as String] as? Bool == false)
        #expect(item[kSecAttrCreationDate as String] is Date)
        #expect(item[kSecAttrModificationDate as String] is Date)
        #expect(item[kSecValueData as String] == nil)
    }

    @Test func returnDataAndAttributesGivesBothInOneDictionary() throws {
        let keychain = try TemporaryKeychain.seeded()
        let found = keychain.store.find(Seed.password("refresh", attributes.merging(data) { $1 }))
        let item = try #require(found.result as? NSDictionary)
        #expect(item[kSecValueData] as? Data == Data("refresh".utf8))
        #expect(item[kSecAttrAccount] as? String == "refresh")
    }

    @Test func bothWithLimitAllGiveAnArrayOfDictionaries() throws {
        let keychain = try TemporaryKeychain.seeded()
        let query = Seed.password("token", attributes.merging(data) { $1 }.merging(all) { $1 })
        let items = try #require(keychain.store.find(query).result as? [[String: Any]])
        #expect(items.compactMap { $0[kSecAttrAccessGroup as String] as? String } == ["group.a", "group.b"])
        #expect(items.compactMap { $0[kSecValueData as String] as? Data }.count == 2)
    }

    @Test func anInternetPasswordsAttributesKeepTheirTypes() throws {
        let keychain = try TemporaryKeychain.seeded()
        let found = keychain.store.find(Seed.internetPassword(port: 443, attributes))
        let item = try #require(found.result as? [String: Any])
        #expect(item[kSecAttrPort as String] as? Int == 443)
        #expect(item[kSecAttrProtocol as String] as? String == "htps")
        // Added without one: Apple's keychain keeps a path as bytes, and an empty one as empty data.
        #expect(item[kSecAttrPath as String] as? Data == Data())
        #expect(item[kSecAttrPath as String] as? String == nil)
    }

    @Test func aNilResultPointerIsAllowed() throws {
        let keychain = try TemporaryKeychain.seeded()
        let query = Seed.password("token", data) as CFDictionary
        #expect(keychain.store.copyMatching(query, nil) == errSecSuccess)
    }

    @Test func aFailedSearchLeavesTheResultNil() throws {
        let keychain = try TemporaryKeychain.seeded()
        var result: CFTypeRef? = NSString(string: "left over")
        let status = keychain.store.copyMatching(Seed.password("nobody", data) as CFDictionary, &result)
        #expect(status == errSecItemNotFound)
        #expect(result == nil)
    }

    @Test func addReturnsTheNewItemWhenAsked() {
        let keychain = TemporaryKeychain()
        var result: CFTypeRef?
        let item = Seed.password("token", [kSecValueData as String: Data("s".utf8)]).merging(attributes) { $1 }
        #expect(keychain.store.add(item as CFDictionary, &result) == errSecSuccess)
        let added = result as? [String: Any]
        #expect(added?[kSecAttrAccount as String] as? String == "token")
        #expect(added?[kSecAttrAccessGroup as String] as? String == "com.contoso.notes")
    }

    @Test func updateSetsTheModificationDateOnly() throws {
        let keychain = try TemporaryKeychain.seeded()
        let query = Seed.password("refresh", attributes)
        let before = try #require(keychain.store.find(query).result as? [String: Any])
        #expect(keychain.store.updateItems(Seed.password("refresh"), [kSecAttrLabel as String: "Refresh"]) == 0)
        let after = try #require(keychain.store.find(query).result as? [String: Any])
        let created = try #require(before[kSecAttrCreationDate as String] as? Date)
        let modified = try #require(before[kSecAttrModificationDate as String] as? Date)
        #expect(after[kSecAttrCreationDate as String] as? Date == created)
        #expect(try #require(after[kSecAttrModificationDate as String] as? Date) > modified)
        #expect(after[kSecAttrLabel as String] as? String == "Refresh")
    }
}
