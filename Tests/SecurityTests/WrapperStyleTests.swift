import Foundation
import Testing

@testable import Security

/// A keychain wrapper written as public ones are: a value configured by chained calls, each
/// call building a SecItem dictionary from what it was told. Ours, to drive the keychain the way
/// such wrappers do.
private struct Vault {
    enum Kind {
        case generic(service: String)
        case internet(server: String, protocol: CFString, authenticationType: CFString, securityDomain: String?)
    }

    enum Failure: Error, Equatable {
        case status(OSStatus)
    }

    let kind: Kind
    private var accessible: CFString = kSecAttrAccessibleAfterFirstUnlock
    private var flags: SecAccessControlCreateFlags?
    private var prompt: String?

    init(service: String) { kind = .generic(service: service) }

    init(server: String, protocol: CFString, authenticationType: CFString, securityDomain: String? = nil) {
        kind = .internet(
            server: server, protocol: `protocol`, authenticationType: authenticationType,
            securityDomain: securityDomain)
    }

    func accessibility(_ accessible: CFString, authenticationPolicy: SecAccessControlCreateFlags? = nil) -> Vault {
        var vault = self
        vault.accessible = accessible
        vault.flags = authenticationPolicy
        return vault
    }

    func authenticationPrompt(_ prompt: String) -> Vault {
        var vault = self
        vault.prompt = prompt
        return vault
    }

    func set(_ value: String, key: String) throws {
        var query = self.query(key)
        let found = SecItemCopyMatching(query as CFDictionary, nil)
        if found == errSecSuccess {
            try check(SecItemDelete(query as CFDictionary))
        } else if found != errSecItemNotFound {
            throw Failure.status(found)
        }
        if let flags {
            var error: Unmanaged<CFError>?
            guard let access = SecAccessControlCreateWithFlags(kCFAllocatorDefault, accessible, flags, &error) else {
                throw error!.takeRetainedValue() as Error
            }
            query[kSecAttrAccessControl as String] = access
        } else {
            query[kSecAttrAccessible as String] = accessible
        }
        query[kSecValueData as String] = Data(value.utf8)
        try check(SecItemAdd(query as CFDictionary, nil))
    }

    func get(_ key: String) throws -> String? {
        var query = self.query(key)
        query[kSecReturnData as String] = kCFBooleanTrue
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        if let prompt { query[kSecUseOperationPrompt as String] = prompt }
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        try check(status)
        return (result as? Data).map { String(decoding: $0, as: UTF8.self) }
    }

    func attributes(_ key: String) throws -> [String: Any]? {
        var query = self.query(key)
        query[kSecReturnAttributes as String] = kCFBooleanTrue
        query[kSecUseAuthenticationUI as String] = kSecUseAuthenticationUISkip
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        try check(status)
        return result as? [String: Any]
    }

    func remove(_ key: String) throws {
        let status = SecItemDelete(query(key) as CFDictionary)
        if status != errSecItemNotFound { try check(status) }
    }

    func removeAll() throws {
        var query = self.query(nil)
        query[kSecMatchLimit as String] = kSecMatchLimitAll
        let status = SecItemDelete(query as CFDictionary)
        if status != errSecItemNotFound { try check(status) }
    }

    private func query(_ key: String?) -> [String: Any] {
        var query: [String: Any]
        switch kind {
        case .generic(let service):
            query = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
        case .internet(let server, let ptcl, let authenticationType, let securityDomain):
            query = [
                kSecClass as String: kSecClassInternetPassword,
                kSecAttrServer as String: server,
                kSecAttrProtocol as String: ptcl,
                kSecAttrAuthenticationType as String: authenticationType,
            ]
            if let securityDomain { query[kSecAttrSecurityDomain as String] = securityDomain }
        }
        if let key { query[kSecAttrAccount as String] = key }
        query[kSecUseDataProtectionKeychain as String] = true
        return query
    }

    private func check(_ status: OSStatus) throws {
        guard status == errSecSuccess else { throw Failure.status(status) }
    }
}

/// The keychain headers' less common parts, through a wrapper over the process's keychain
/// (shared with the other suites: each test has a service or server of its own).
@Suite("Keychain as wrappers use it")
struct WrapperStyleTests {
    private let name = "contoso-" + UUID().uuidString.prefix(8).lowercased()

    init() { _ = IOSCodeTests.folder }

    @Test func anItemWithAnAccessControlIsStoredMatchedAndDeleted() throws {
        let vault = Vault(service: name).accessibility(
            kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, authenticationPolicy: .biometryCurrentSet)
        defer { try? vault.removeAll() }
        try vault.set("pin-4711", key: "pin")
        #expect(try vault.authenticationPrompt("Unlock your notes").get("pin") == "pin-4711")

        let attributes = try #require(try vault.attributes("pin"))
        let access = try #require(attributes[kSecAttrAccessControl as String] as? SecAccessControl)
        var error: Unmanaged<CFError>?
        let same = SecAccessControlCreateWithFlags(
            nil, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, .biometryCurrentSet, &error)
        #expect(access == same)
        #expect(error == nil)
        let protection = attributes[kSecAttrAccessible as String] as? String
        #expect(protection == kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly as String)

        // Found by its access control, as by any attribute, and by nothing else.
        let byAccess: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: name,
            kSecAttrAccessControl as String: access,
        ]
        #expect(SecItemCopyMatching(byAccess as CFDictionary, nil) == errSecSuccess)
        let other = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, .or, nil)
        var byOther = byAccess
        byOther[kSecAttrAccessControl as String] = other
        #expect(SecItemCopyMatching(byOther as CFDictionary, nil) == errSecItemNotFound)

        // Its secret is in the keychain's file, which the leak scan reads.
        let file = try String(contentsOfFile: IOSCodeTests.folder + "/items.json", encoding: .utf8)
        #expect(file.contains(Data("pin-4711".utf8).base64EncodedString()))

        try vault.remove("pin")
        #expect(try vault.get("pin") == nil)
    }

    @Test(arguments: [kSecAttrAccessibleAlways as String, kSecAttrAccessibleAlwaysThisDeviceOnly as String])
    func theDeprecatedProtectionsAreKept(_ accessible: String) throws {
        let vault = Vault(service: name).accessibility(accessible as CFString)
        defer { try? vault.removeAll() }
        try vault.set("legacy", key: "token")
        #expect(try vault.get("token") == "legacy")
        #expect(try vault.attributes("token")?[kSecAttrAccessible as String] as? String == accessible)
    }

    @Test func internetPasswordsAreToldApartByAuthenticationType() throws {
        let server = name + ".contoso.com"
        let form = Vault(
            server: server, protocol: kSecAttrProtocolHTTPS, authenticationType: kSecAttrAuthenticationTypeHTMLForm)
        let basic = Vault(
            server: server, protocol: kSecAttrProtocolHTTPS, authenticationType: kSecAttrAuthenticationTypeHTTPBasic,
            securityDomain: "Contoso")
        defer { for vault in [form, basic] { try? vault.removeAll() } }
        try form.set("form-pw", key: "ann")
        try basic.set("basic-pw", key: "ann")
        #expect(try form.get("ann") == "form-pw")
        #expect(try basic.get("ann") == "basic-pw")

        let attributes = try #require(try basic.attributes("ann"))
        #expect(attributes[kSecAttrProtocol as String] as? String == "htps")
        #expect(attributes[kSecAttrAuthenticationType as String] as? String == "http")
        #expect(attributes[kSecAttrSecurityDomain as String] as? String == "Contoso")
        #expect(attributes[kSecAttrServer as String] as? String == server)
        try form.remove("ann")
        #expect(try form.get("ann") == nil)
        #expect(try basic.get("ann") == "basic-pw")
    }
}

/// What the access control, the attributes of the headers and the `kSecUse…`/`kSecMatch…` keys
/// do, on a keychain of each test's own.
@Suite("Keychain headers")
struct HeaderTests {
    @Test func anAccessControlIsMadeOnlyFromFlagsThatCombine() {
        let refused: [(CFTypeRef, SecAccessControlCreateFlags)] = [
            (kSecAttrAccessibleWhenUnlocked, [.biometryAny, .devicePasscode, .or, .and]),
            (kSecAttrAccessibleWhenUnlocked, [.biometryAny, .biometryCurrentSet]),
            (kSecAttrAccessibleWhenUnlocked, [.userPresence, .devicePasscode]),
            ("nope" as CFString, .userPresence),
            (NSNumber(value: 1), []),
        ]
        for (protection, flags) in refused {
            var error: Unmanaged<CFError>?
            #expect(SecAccessControlCreateWithFlags(kCFAllocatorDefault, protection, flags, &error) == nil)
            let failure = error.map { $0.takeRetainedValue() as Error as NSError }
            #expect(failure?.code == Int(errSecParam) && failure?.domain == NSOSStatusErrorDomain)
        }
        let accepted: [SecAccessControlCreateFlags] = [
            [], .userPresence, [.userPresence, .applicationPassword, .privateKeyUsage], .touchIDAny,
            [.biometryCurrentSet, .devicePasscode, .or], [.biometryAny, .watch, .and], .privateKeyUsage,
        ]
        for flags in accepted {
            var error: Unmanaged<CFError>?
            #expect(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAlways, flags, &error) != nil)
            #expect(error == nil)
        }
    }

    @Test func accessControlsAreHashableByWhatTheyWereMadeFrom() {
        let make = { (flags: SecAccessControlCreateFlags) in
            SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, flags, nil)!
        }
        #expect(make(.userPresence) == make(.userPresence))
        #expect(make(.userPresence) != make(.devicePasscode))
        #expect(Set([make(.userPresence), make(.userPresence), make(.biometryAny)]).count == 2)
        #expect(SecAccessControlCreateFlags.touchIDAny == .biometryAny)
        #expect(SecAccessControlCreateFlags.applicationPassword.rawValue == 1 << 31)
    }

    @Test func anAccessControlSetsTheProtectionAndMustAgreeWithAGivenOne() {
        let keychain = TemporaryKeychain()
        let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAfterFirstUnlock, .userPresence, nil)!
        let mismatched = Seed.password(
            "a",
            [kSecAttrAccessControl as String: access, kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked])
        #expect(keychain.store.addItem(mismatched) == errSecParam)
        let agreeing = Seed.password(
            "a",
            [kSecAttrAccessControl as String: access, kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock])
        #expect(keychain.store.addItem(agreeing) == errSecSuccess)
        #expect(
            keychain.store.count(Seed.password("a", [kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock]))
                == 1)

        // The access control survives the file: a new store reads it back.
        let relaunched = KeychainStore(folder: keychain.folder, defaultAccessGroup: "com.contoso.notes")
        let found = relaunched.find(Seed.password("a", [kSecReturnAttributes as String: true]))
        #expect((found.result as? [String: Any])?[kSecAttrAccessControl as String] as? SecAccessControl == access)
    }

    @Test func everyAttributeOfTheHeadersIsTakenWithItsType() throws {
        let keychain = TemporaryKeychain()
        let password = Seed.password(
            "typed",
            [
                kSecAttrCreator as String: 0x6374_736f, kSecAttrType as String: 1, kSecAttrIsInvisible as String: true,
                kSecAttrIsNegative as String: kCFBooleanFalse as Any, kSecAttrLabel as String: "Contoso",
                kSecAttrSyncViewHint as String: "Contoso",
            ])
        #expect(keychain.store.addItem(password) == errSecSuccess)
        let item = try #require(
            keychain.store.find(Seed.password("typed", [kSecReturnAttributes as String: true])).result as? NSDictionary)
        #expect(item[kSecAttrIsInvisible] as? Bool == true)
        #expect(item[kSecAttrCreator] as? Int == 0x6374_736f)

        let key: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
            kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048,
            kSecAttrEffectiveKeySize as String: 2048, kSecAttrApplicationTag as String: "com.contoso.key",
            kSecAttrApplicationLabel as String: Data([1, 2]), kSecAttrIsPermanent as String: true,
            kSecAttrCanEncrypt as String: false, kSecAttrCanDecrypt as String: true, kSecAttrCanSign as String: true,
            kSecAttrCanVerify as String: false, kSecAttrCanWrap as String: false, kSecAttrCanUnwrap as String: true,
            kSecAttrCanDerive as String: false, kSecAttrIsSensitive as String: true,
            kSecAttrIsExtractable as String: false, kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
            kSecValueData as String: Data("key bytes".utf8),
        ]
        #expect(keychain.store.addItem(key) == errSecSuccess)
        let byType: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecAttrKeyType as String: kSecAttrKeyTypeRSA,
            kSecReturnAttributes as String: true,
        ]
        let found = try #require(keychain.store.find(byType).result as? NSDictionary)
        // The key type is kept as a number, as iOS returns it.
        #expect(found[kSecAttrKeyType] as? Int == 42)

        let certificate: [String: Any] = [
            kSecClass as String: kSecClassCertificate, kSecAttrCertificateType as String: 3,
            kSecAttrCertificateEncoding as String: 3, kSecAttrSubject as String: Data([1]),
            kSecAttrIssuer as String: Data([2]), kSecAttrSerialNumber as String: Data([3]),
            kSecAttrSubjectKeyID as String: Data([4]), kSecAttrPublicKeyHash as String: Data([5]),
            kSecValueData as String: Data("DER".utf8),
        ]
        #expect(keychain.store.addItem(certificate) == errSecSuccess)
    }

    /// A key with a value of a type it does not take. Unchecked: the values are immutable.
    struct WrongType: @unchecked Sendable, CustomTestStringConvertible {
        let key: CFString
        let value: Any

        var testDescription: String { "\(key) = \(value)" }
    }

    @Test(arguments: [
        WrongType(key: kSecAttrCreator, value: Data()), WrongType(key: kSecAttrType, value: [1]),
        WrongType(key: kSecAttrIsInvisible, value: "yes"), WrongType(key: kSecAttrIsNegative, value: Data()),
        WrongType(key: kSecAttrSecurityDomain, value: Date()), WrongType(key: kSecAttrAuthenticationType, value: [2]),
        WrongType(key: kSecAttrAccessControl, value: "biometry"),
        WrongType(key: kSecAttrAccessible, value: "sometimes"),
        WrongType(key: kSecAttrKeySizeInBits, value: Data()), WrongType(key: kSecAttrSubject, value: Date()),
        WrongType(key: kSecAttrAccount, value: ["a": 1]), WrongType(key: kSecAttrAccessGroup, value: 5),
        WrongType(key: kSecAttrTokenID, value: true), WrongType(key: kSecUseAuthenticationUI, value: "ask"),
        WrongType(key: kSecUseOperationPrompt, value: 3), WrongType(key: kSecMatchCaseInsensitive, value: "yes"),
    ])
    func aValueOfAnotherTypeIsRefused(_ wrong: WrongType) {
        let keychain = TemporaryKeychain()
        #expect(keychain.store.find(Seed.password("token", [wrong.key as String: wrong.value])).status == errSecParam)
    }

    @Test func theAuthenticationKeysAreTakenAndDoNotHideItems() throws {
        let keychain = try TemporaryKeychain.seeded()
        for value in [kSecUseAuthenticationUIAllow, kSecUseAuthenticationUIFail, kSecUseAuthenticationUISkip] {
            let query = Seed.password("refresh", [kSecUseAuthenticationUI as String: value])
            #expect(keychain.store.find(query).status == errSecSuccess)
        }
        let context = Seed.password(
            "refresh",
            [
                kSecUseAuthenticationContext as String: NSObject(), kSecUseOperationPrompt as String: "Why",
                kSecUseNoAuthenticationUI as String: true,
            ])
        #expect(keychain.store.secret(context) == "refresh")
    }

    @Test func aCaseInsensitiveSearchMatchesWhateverTheCase() throws {
        let keychain = try TemporaryKeychain.seeded()
        #expect(keychain.store.find(Seed.password("REFRESH")).status == errSecItemNotFound)
        let query = Seed.password("REFRESH", [kSecMatchCaseInsensitive as String: true])
        #expect(keychain.store.secret(query) == "refresh")
        // An add keeps the account as given.
        #expect(keychain.store.addItem(query) == errSecSuccess)
    }

    @Test(
        arguments: [
            kSecMatchPolicy, kSecMatchItemList, kSecMatchSearchList, kSecMatchIssuers, kSecMatchEmailAddressIfPresent,
            kSecMatchSubjectContains, kSecMatchTrustedOnly, kSecMatchValidOnDate, kSecUseItemList,
            kSecAttrPersistentReference,
        ].map { $0 as String })
    func whatNeedsReferencesOrCertificatesIsUnimplemented(_ key: String) throws {
        let keychain = try TemporaryKeychain.seeded()
        let query = Seed.password("token", [key: NSArray()])
        #expect(keychain.store.find(query).status == errSecUnimplemented)
    }

    @Test func theConstantsHaveApplesStrings() {
        let pairs: [(CFString, String)] = [
            (kSecAttrAccessibleAlways, "dk"), (kSecAttrAccessibleAlwaysThisDeviceOnly, "dku"),
            (kSecAttrAccessControl, "accc"), (kSecAttrAuthenticationType, "atyp"), (kSecAttrProtocolSSH, "ssh "),
            (kSecAttrAuthenticationTypeHTMLForm, "form"), (kSecUseAuthenticationUISkip, "u_AuthUIS"),
            (kSecUseOperationPrompt, "u_OpPrompt"), (kSecAttrKeyTypeECSECPrimeRandom, "73"),
            (kSecAttrCanEncrypt, "encr"), (kSecAttrSecurityDomain, "sdmn"),
        ]
        for (constant, string) in pairs { #expect(constant as String == string) }
        #expect(kSecAttrKeyType == kSecAttrType)
    }
}
