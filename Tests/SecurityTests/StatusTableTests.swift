import Foundation
import Testing

@testable import Security

/// One SecItem call on a seeded keychain (`Seed.items`) and the status it must return.
struct StatusCase: Sendable, CustomTestStringConvertible {
    let name: String
    let expected: OSStatus
    let call: @Sendable (KeychainStore) -> OSStatus

    init(_ name: String, _ expected: OSStatus, _ call: @escaping @Sendable (KeychainStore) -> OSStatus) {
        self.name = name
        self.expected = expected
        self.call = call
    }

    var testDescription: String { name }
}

private typealias Keys = [String: Any]
private var returnData: Keys { [kSecReturnData as String: true] }
private var limitAll: Keys { [kSecMatchLimit as String: kSecMatchLimitAll] }

let statusCases: [StatusCase] = [
    // Add
    StatusCase("add a new account", errSecSuccess) { $0.addItem(Seed.password("new", group: "group.a")) },
    StatusCase("add an existing primary key", errSecDuplicateItem) {
        $0.addItem(Seed.password("token", group: "group.a", [kSecValueData as String: Data("x".utf8)]))
    },
    StatusCase("add an existing account in another access group", errSecSuccess) {
        $0.addItem(Seed.password("token", group: "group.c"))
    },
    StatusCase("add an existing account as synchronizable", errSecSuccess) {
        $0.addItem(Seed.password("token", group: "group.a", [kSecAttrSynchronizable as String: true]))
    },
    StatusCase("add an existing internet password", errSecDuplicateItem) {
        $0.addItem(Seed.internetPassword(port: 443))
    },
    StatusCase("add an internet password on another port", errSecSuccess) {
        $0.addItem(Seed.internetPassword(port: 8443))
    },
    StatusCase("add a key", errSecSuccess) {
        $0.addItem([
            kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("com.contoso.key".utf8),
            kSecAttrKeyClass as String: kSecAttrKeyClassSymmetric, kSecValueData as String: Data(count: 32),
        ])
    },
    StatusCase("add without kSecClass", errSecParam) { $0.addItem([kSecAttrAccount as String: "new"]) },
    StatusCase("add an unknown class", errSecParam) {
        $0.addItem([kSecClass as String: "nope", kSecAttrAccount as String: "new"])
    },
    StatusCase("add a string as kSecValueData", errSecParam) {
        $0.addItem(Seed.password("new", [kSecValueData as String: "secret"]))
    },
    // A string of digits is its number, as iOS reads it: port "443" is the seeded item's 443.
    StatusCase("add a string of digits as kSecAttrPort", errSecDuplicateItem) {
        $0.addItem(
            Seed.internetPassword(port: 1)
                .merging([kSecAttrPort as String: "443"]) { _, new in new })
    },
    StatusCase("add a date as kSecAttrPort", errSecParam) {
        $0.addItem(
            Seed.internetPassword(port: 1)
                .merging([kSecAttrPort as String: Date()]) { _, new in new })
    },
    StatusCase("add kSecAttrAccount as data", errSecSuccess) {
        $0.addItem(Seed.password("new").merging([kSecAttrAccount as String: Data("new".utf8)]) { _, new in new })
    },
    StatusCase("add as data the bytes of an existing account", errSecDuplicateItem) {
        $0.addItem(
            Seed.password("token", group: "group.a").merging([kSecAttrAccount as String: Data("token".utf8)]) { $1 })
    },
    StatusCase("add a date as kSecAttrAccount", errSecParam) {
        $0.addItem(Seed.password("new").merging([kSecAttrAccount as String: Date()]) { _, new in new })
    },
    StatusCase("add an access group of data that is no UTF-8", errSecParam) {
        $0.addItem(Seed.password("new").merging([kSecAttrAccessGroup as String: Data([0xff, 0xfe])]) { $1 })
    },
    StatusCase("add an unknown kSecAttrAccessible", errSecParam) {
        $0.addItem(Seed.password("new", [kSecAttrAccessible as String: "always"]))
    },
    StatusCase("add a dictionary as kSecAttrAccount", errSecParam) {
        $0.addItem(Seed.password("new").merging([kSecAttrAccount as String: ["a": 1]]) { _, new in new })
    },
    StatusCase("add an unknown key", errSecParam) { $0.addItem(Seed.password("new", ["bogus": "x"])) },
    StatusCase("add kSecAttrSynchronizableAny", errSecParam) {
        $0.addItem(Seed.password("new", [kSecAttrSynchronizable as String: kSecAttrSynchronizableAny]))
    },
    StatusCase("add a kSecValueRef", errSecUnimplemented) {
        $0.addItem(Seed.password("new", [kSecValueRef as String: NSData()]))
    },
    // CopyMatching
    StatusCase("copy an existing item", errSecSuccess) {
        $0.find(Seed.password("token").merging(returnData) { $1 }).status
    },
    StatusCase("copy all the service's items", errSecSuccess) {
        $0.find(Seed.password("token").merging(limitAll) { $1 }).status
    },
    StatusCase("copy a missing account", errSecItemNotFound) { $0.find(Seed.password("nobody")).status },
    StatusCase("copy an account in an access group without it", errSecItemNotFound) {
        $0.find(Seed.password("refresh", group: "group.b")).status
    },
    StatusCase("copy a string account by its bytes as data", errSecSuccess) {
        $0.find(Seed.password("refresh").merging([kSecAttrAccount as String: Data("refresh".utf8)]) { $1 }).status
    },
    StatusCase("copy an account in its access group", errSecSuccess) {
        $0.find(Seed.password("token", group: "group.b")).status
    },
    StatusCase("copy a synchronizable item that is not", errSecItemNotFound) {
        $0.find(Seed.password("token", [kSecAttrSynchronizable as String: true])).status
    },
    StatusCase("copy with kSecAttrSynchronizableAny", errSecSuccess) {
        $0.find(Seed.password("token", [kSecAttrSynchronizable as String: kSecAttrSynchronizableAny])).status
    },
    StatusCase("copy without kSecClass", errSecParam) { $0.find([kSecAttrAccount as String: "token"]).status },
    StatusCase("copy a string as kSecReturnData", errSecParam) {
        $0.find(Seed.password("token", [kSecReturnData as String: "yes"])).status
    },
    StatusCase("copy with an unknown kSecMatchLimit", errSecParam) {
        $0.find(Seed.password("token", [kSecMatchLimit as String: "m_LimitSome"])).status
    },
    StatusCase("copy with kSecReturnRef", errSecUnimplemented) {
        $0.find(Seed.password("token", [kSecReturnRef as String: true])).status
    },
    // Update
    StatusCase("update an item's data", errSecSuccess) {
        $0.updateItems(Seed.password("token", group: "group.a"), [kSecValueData as String: Data("new".utf8)])
    },
    StatusCase("update the service of two items", errSecSuccess) {
        $0.updateItems(Seed.password("token").merging(limitAll) { $1 }, [kSecAttrService as String: "moved"])
    },
    StatusCase("update an account onto another's", errSecDuplicateItem) {
        $0.updateItems(Seed.password("token", group: "group.a"), [kSecAttrAccount as String: "refresh"])
    },
    StatusCase("update two items onto one primary key", errSecDuplicateItem) {
        $0.updateItems(
            [kSecClass as String: kSecClassGenericPassword, kSecAttrAccessGroup as String: "group.a"],
            [kSecAttrAccount as String: "same"])
    },
    StatusCase("update a missing item", errSecItemNotFound) {
        $0.updateItems(Seed.password("nobody"), [kSecValueData as String: Data()])
    },
    StatusCase("update with kSecClass among the changes", errSecParam) {
        $0.updateItems(Seed.password("token"), [kSecClass as String: kSecClassInternetPassword])
    },
    StatusCase("update with kSecReturnData in the query", errSecParam) {
        $0.updateItems(Seed.password("token").merging(returnData) { $1 }, [kSecAttrLabel as String: "x"])
    },
    StatusCase("update with kSecMatchLimitOne in the query", errSecSuccess) {
        $0.updateItems(
            Seed.password("token", [kSecMatchLimit as String: kSecMatchLimitOne]), [kSecAttrLabel as String: "x"])
    },
    StatusCase("update with kSecMatchLimit among the changes", errSecParam) {
        $0.updateItems(Seed.password("token"), [kSecMatchLimit as String: kSecMatchLimitAll])
    },
    StatusCase("update without kSecClass in the query", errSecParam) {
        $0.updateItems([kSecAttrAccount as String: "token"], [kSecAttrLabel as String: "x"])
    },
    StatusCase("update kSecValueData to a string", errSecParam) {
        $0.updateItems(Seed.password("token"), [kSecValueData as String: "new"])
    },
    // Delete
    StatusCase("delete an item", errSecSuccess) { $0.deleteItems(Seed.password("token", group: "group.b")) },
    StatusCase("delete every generic password", errSecSuccess) {
        $0.deleteItems([kSecClass as String: kSecClassGenericPassword])
    },
    StatusCase("delete with kSecMatchLimitAll", errSecSuccess) {
        $0.deleteItems(Seed.password("token").merging(limitAll) { $1 })
    },
    StatusCase("delete with kSecMatchLimitOne", errSecParam) {
        $0.deleteItems(Seed.password("token", [kSecMatchLimit as String: kSecMatchLimitOne]))
    },
    StatusCase("delete a missing item", errSecItemNotFound) { $0.deleteItems(Seed.password("nobody")) },
    StatusCase("delete a class without items", errSecItemNotFound) {
        $0.deleteItems([kSecClass as String: kSecClassCertificate])
    },
    StatusCase("delete without kSecClass", errSecParam) { $0.deleteItems([kSecAttrService as String: Seed.service]) },
]

@Suite("SecItem statuses")
struct StatusTableTests {
    @Test(arguments: statusCases)
    func status(_ statusCase: StatusCase) throws {
        let keychain = try TemporaryKeychain.seeded()
        #expect(statusCase.call(keychain.store) == statusCase.expected)
    }

    @Test func duplicateAddChangesNothing() throws {
        let keychain = try TemporaryKeychain.seeded()
        let again = Seed.password("token", group: "group.a", [kSecValueData as String: Data("x".utf8)])
        #expect(keychain.store.addItem(again) == errSecDuplicateItem)
        #expect(keychain.store.secret(Seed.password("token", group: "group.a")) == "secret")
    }

    @Test func collidingUpdateChangesNothing() throws {
        let keychain = try TemporaryKeychain.seeded()
        let group: Keys = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccessGroup as String: "group.a"]
        let changes: Keys = [kSecAttrAccount as String: "same", kSecValueData as String: Data("x".utf8)]
        #expect(keychain.store.updateItems(group, changes) == errSecDuplicateItem)
        #expect(keychain.store.secret(Seed.password("token", group: "group.a")) == "secret")
        #expect(keychain.store.count(Seed.password("same")) == 0)
    }

    @Test func updateChangesEveryMatchWhateverTheLimit() throws {
        let keychain = try TemporaryKeychain.seeded()
        let query = Seed.password("token", [kSecMatchLimit as String: kSecMatchLimitOne])
        #expect(keychain.store.updateItems(query, [kSecValueData as String: Data("new".utf8)]) == errSecSuccess)
        #expect(keychain.store.secret(Seed.password("token", group: "group.a")) == "new")
        #expect(keychain.store.secret(Seed.password("token", group: "group.b")) == "new")
        #expect(keychain.store.secret(Seed.password("refresh")) == "refresh")
    }

    @Test func deleteRemovesEveryMatchAndNothingElse() throws {
        let keychain = try TemporaryKeychain.seeded()
        #expect(keychain.store.deleteItems(Seed.password("token")) == errSecSuccess)
        #expect(keychain.store.count(Seed.password("token")) == 0)
        #expect(keychain.store.count([kSecClass as String: kSecClassGenericPassword]) == 1)
        #expect(keychain.store.count([kSecClass as String: kSecClassInternetPassword]) == 1)
    }

    @Test func synchronizableItemsAreFoundOnlyWhenAskedFor() throws {
        let keychain = TemporaryKeychain()
        let synchronizable = Seed.password("token", [kSecAttrSynchronizable as String: true])
        #expect(keychain.store.addItem(synchronizable) == errSecSuccess)
        #expect(keychain.store.find(Seed.password("token")).status == errSecItemNotFound)
        #expect(keychain.store.find(synchronizable).status == errSecSuccess)
        #expect(keychain.store.deleteItems(Seed.password("token")) == errSecItemNotFound)
        let any = Seed.password("token", [kSecAttrSynchronizable as String: kSecAttrSynchronizableAny])
        #expect(keychain.store.deleteItems(any) == errSecSuccess)
    }

    @Test func anItemAddedWithoutAnAccountIsFoundByTheEmptyOne() {
        let keychain = TemporaryKeychain()
        let noAccount: Keys = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s"]
        #expect(keychain.store.addItem(noAccount) == errSecSuccess)
        #expect(keychain.store.addItem(noAccount) == errSecDuplicateItem)
        #expect(keychain.store.find(noAccount.merging([kSecAttrAccount as String: ""]) { $1 }).status == errSecSuccess)
    }

    @Test func errorMessagesAreShortSentences() {
        let statuses = [
            errSecSuccess, errSecUnimplemented, errSecIO, errSecParam, errSecAllocate, errSecNotAvailable,
            errSecDuplicateItem, errSecItemNotFound, errSecInteractionNotAllowed, errSecDecode,
            errSecMissingEntitlement,
        ]
        let messages = statuses.map { SecCopyErrorMessageString($0, nil) as String? }
        #expect(Set(messages).count == statuses.count)
        #expect(messages[7] == "The specified item could not be found in the keychain.")
        #expect(
            SecCopyErrorMessageString(-1, nil) as String? == "The operation couldn't be completed. (OSStatus error -1.)"
        )
    }
}
