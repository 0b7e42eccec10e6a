import Foundation
import Security
import Testing

/// A string store over the keychain written as public wrappers write one: each key is the
/// item's account given as its UTF-8 bytes (and as its generic attribute), an add that finds the
/// key taken updates it, and the keys are read back from the attributes, as data or as a string.
/// Ours, to drive the keychain the way such code does.
private struct KeyedStrings {
    let serviceName: String

    @discardableResult
    func set(_ value: String, forKey key: String) -> Bool {
        var query = self.query(forKey: key)
        query[kSecValueData as String] = Data(value.utf8)
        query[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlock
        let status = SecItemAdd(query as CFDictionary, nil)
        guard status == errSecDuplicateItem else { return status == errSecSuccess }
        let changes = [kSecValueData as String: Data(value.utf8)]
        return SecItemUpdate(self.query(forKey: key) as CFDictionary, changes as CFDictionary) == errSecSuccess
    }

    func string(forKey key: String) -> String? {
        var query = self.query(forKey: key)
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        query[kSecReturnData as String] = kCFBooleanTrue
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess, let data = result as? Data else {
            return nil
        }
        return String(data: data, encoding: .utf8)
    }

    @discardableResult
    func removeObject(forKey key: String) -> Bool {
        SecItemDelete(query(forKey: key) as CFDictionary) == errSecSuccess
    }

    func allKeys() -> Set<String> {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: serviceName,
            kSecReturnAttributes as String: kCFBooleanTrue!, kSecMatchLimit as String: kSecMatchLimitAll,
        ]
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess,
            let items = result as? [[String: Any]]
        else { return [] }
        return Set(
            items.compactMap { item in
                if let data = item[kSecAttrAccount as String] as? Data { return String(data: data, encoding: .utf8) }
                return item[kSecAttrAccount as String] as? String
            })
    }

    func query(forKey key: String) -> [String: Any] {
        let identifier = key.data(using: .utf8)
        return [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: serviceName,
            kSecAttrAccount as String: identifier as Any, kSecAttrGeneric as String: identifier as Any,
        ]
    }
}

/// Attributes Apple's keychain keeps as bytes (account, service, label, generic, …) take a
/// string, data or a number, hand back the type they were given and are searched by their bytes,
/// as Apple's SecItemSchema.c and SecDbItem.c do; text, numbers and data take what those take.
@Suite("Keychain attributes of each type", .serialized)
struct DataAttributeTests {
    private let service = "contoso-" + UUID().uuidString.prefix(8).lowercased()

    init() { _ = IOSCodeTests.folder }

    @Test func aKeyGivenAsDataIsSetReadUpdatedAndRemoved() {
        let store = KeyedStrings(serviceName: service)
        #expect(store.set("shift-token-1", forKey: "accessToken"))
        #expect(store.string(forKey: "accessToken") == "shift-token-1")
        #expect(store.set("shift-token-2", forKey: "accessToken"))
        #expect(store.string(forKey: "accessToken") == "shift-token-2")
        #expect(store.set("ann", forKey: "userName"))
        #expect(store.allKeys() == ["accessToken", "userName"])
        #expect(store.removeObject(forKey: "accessToken"))
        #expect(store.string(forKey: "accessToken") == nil)
        #expect(!store.removeObject(forKey: "accessToken"))
        #expect(store.allKeys() == ["userName"])
        #expect(store.removeObject(forKey: "userName"))
    }

    @Test func theItemIsInTheKeychainFileWithItsAccountAsData() throws {
        let store = KeyedStrings(serviceName: service)
        #expect(store.set("left-by-ann", forKey: "shiftToken"))
        defer { store.removeObject(forKey: "shiftToken") }

        let file = try Data(contentsOf: URL(fileURLWithPath: IOSCodeTests.folder + "/items.json"))
        let contents = try #require(try JSONSerialization.jsonObject(with: file) as? [String: Any])
        let items = try #require(contents["items"] as? [[String: Any]])
        let mine = items.filter { item in
            let attributes = item["attributes"] as? [String: [String: Any]]
            return attributes?["svce"]?["string"] as? String == service
        }
        try #require(mine.count == 1)
        let attributes = try #require(mine[0]["attributes"] as? [String: [String: Any]])
        let encoded = Data("shiftToken".utf8).base64EncodedString()
        #expect(attributes["acct"]?["data"] as? String == encoded)
        #expect(attributes["gena"]?["data"] as? String == encoded)
        #expect(mine[0]["data"] as? String == Data("left-by-ann".utf8).base64EncodedString())
    }

    @Test func theAccountComesBackAsTheTypeItWasGiven() throws {
        let store = KeyedStrings(serviceName: service)
        #expect(store.set("x", forKey: "asData"))
        let asString = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
            .merging([kSecAttrAccount as String: "asString"]) { $1 }
        #expect(SecItemAdd(asString as CFDictionary, nil) == errSecSuccess)
        defer { SecItemDelete(asString.filter { $0.key != kSecAttrAccount as String } as CFDictionary) }

        let byData = try #require(attributes(of: store.query(forKey: "asData")))
        #expect(byData[kSecAttrAccount as String] as? Data == Data("asData".utf8))
        #expect(byData[kSecAttrAccount as String] as? String == nil)
        #expect(byData[kSecAttrGeneric as String] as? Data == Data("asData".utf8))
        let byString = try #require(attributes(of: asString))
        #expect(byString[kSecAttrAccount as String] as? String == "asString")
        #expect(byString[kSecAttrAccount as String] as? Data == nil)
    }

    @Test func aStringFindsTheSameBytesGivenAsDataAndTheOtherWayRound() throws {
        let base: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
        let byData = base.merging([kSecAttrAccount as String: Data("token".utf8)]) { $1 }
        let byString = base.merging([kSecAttrAccount as String: "token"]) { $1 }
        defer { SecItemDelete(base as CFDictionary) }

        let added = byData.merging([kSecValueData as String: Data("a".utf8)]) { $1 }
        #expect(SecItemAdd(added as CFDictionary, nil) == errSecSuccess)
        #expect(SecItemCopyMatching(byString as CFDictionary, nil) == errSecSuccess)
        // One item: the same bytes are the same account, whichever type gives them.
        #expect(SecItemAdd(byString as CFDictionary, nil) == errSecDuplicateItem)
        let serviceAsData = byString.merging([kSecAttrService as String: Data(service.utf8)]) { $1 }
        #expect(SecItemCopyMatching(serviceAsData as CFDictionary, nil) == errSecSuccess)
        #expect(SecItemDelete(byString as CFDictionary) == errSecSuccess)
        #expect(SecItemCopyMatching(byData as CFDictionary, nil) == errSecItemNotFound)

        #expect(SecItemAdd(byString as CFDictionary, nil) == errSecSuccess)
        let label = [kSecAttrLabel as String: Data("L".utf8)]
        #expect(SecItemUpdate(byData as CFDictionary, label as CFDictionary) == errSecSuccess)
        let byLabelText = byString.merging([kSecAttrLabel as String: "L"]) { $1 }
        #expect(SecItemCopyMatching(byLabelText as CFDictionary, nil) == errSecSuccess)
        #expect(SecItemDelete(byData as CFDictionary) == errSecSuccess)
        #expect(SecItemCopyMatching(byString as CFDictionary, nil) == errSecItemNotFound)
    }

    /// A value of each type an attribute takes on iOS, and what a search hands back for it.
    struct Taken: @unchecked Sendable, CustomTestStringConvertible {
        enum Returned {
            case data(Data)
            case string(String)
            case number(Int)
        }

        let key: CFString
        let given: Any
        let returned: Returned

        var testDescription: String { "\(key) = \(given)" }

        /// Whether `object` is what iOS hands back, of the same type.
        func isReturned(_ object: Any?) -> Bool {
            switch returned {
            case .data(let data): object as? Data == data && !(object is String)
            case .string(let string): object as? String == string
            case .number(let number): object as? Int == number && !(object is String)
            }
        }
    }

    @Test(arguments: [
        Taken(key: kSecAttrLabel, given: Data("Contoso".utf8), returned: .data(Data("Contoso".utf8))),
        Taken(key: kSecAttrDescription, given: 7, returned: .number(7)),
        Taken(key: kSecAttrComment, given: "note", returned: .string("note")),
        Taken(key: kSecAttrGeneric, given: "opaque", returned: .string("opaque")),
        Taken(key: kSecAttrCreator, given: "ctso", returned: .string("ctso")),
        Taken(key: kSecAttrType, given: "12", returned: .number(12)),
        Taken(key: kSecAttrType, given: "012", returned: .string("012")),
        Taken(key: kSecAttrAccessGroup, given: Data("group.contoso".utf8), returned: .string("group.contoso")),
    ])
    func anAttributeTakesWhatIOSTakes(_ taken: Taken) throws {
        let item: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: "typed", taken.key as String: taken.given,
        ]
        #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
        defer { SecItemDelete(item as CFDictionary) }
        let found = try #require(attributes(of: item))
        #expect(taken.isReturned(found[taken.key as String]))
    }

    @Test func theKeysOfKeysAndInternetPasswordsAreNumbersAndBytes() throws {
        let tag = Data((service + ".key").utf8)
        let key: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag,
            kSecAttrKeyClass as String: kSecAttrKeyClassPrivate, kSecValueData as String: Data(count: 16),
        ]
        #expect(SecItemAdd(key as CFDictionary, nil) == errSecSuccess)
        defer { SecItemDelete(key.filter { $0.key != kSecValueData as String } as CFDictionary) }
        let byTagText: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: service + ".key",
            kSecAttrKeyClass as String: 1,
        ]
        let found = try #require(attributes(of: byTagText))
        #expect(found[kSecAttrKeyClass as String] as? Int == 1)
        #expect(found[kSecAttrApplicationTag as String] as? Data == tag)

        let server = service + ".contoso.com"
        let password: [String: Any] = [
            kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: Data(server.utf8),
            kSecAttrAccount as String: "ann", kSecAttrPort as String: "8443",
            kSecAttrProtocol as String: kSecAttrProtocolHTTPS,
        ]
        #expect(SecItemAdd(password as CFDictionary, nil) == errSecSuccess)
        defer { SecItemDelete(password as CFDictionary) }
        let byPort: [String: Any] = [
            kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: server,
            kSecAttrPort as String: 8443,
        ]
        let internet = try #require(attributes(of: byPort))
        #expect(internet[kSecAttrPort as String] as? Int == 8443)
        #expect(internet[kSecAttrProtocol as String] as? String == "htps")
        #expect(internet[kSecAttrServer as String] as? Data == Data(server.utf8))
    }

    private func attributes(of query: [String: Any]) -> [String: Any]? {
        var result: CFTypeRef?
        let asked = query.merging([kSecReturnAttributes as String: true]) { $1 }
        guard SecItemCopyMatching(asked as CFDictionary, &result) == errSecSuccess else { return nil }
        return result as? [String: Any]
    }
}
