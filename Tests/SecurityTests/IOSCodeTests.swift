import Foundation
import Security
import Testing

/// App code as written for iOS, importing only Foundation and Security, over the keychain that
/// `SDLAB_KEYCHAIN` names, as a test host would. The variable is the process's: the first suite
/// that needs a keychain names it, and every suite of the test process shares it (each with
/// services of its own, never deleting another's items); it is removed when the process exits.
/// These tests share that keychain, so they run one at a time.
@Suite("iOS keychain code", .serialized)
struct IOSCodeTests {
    /// The process's keychain folder.
    static let folder: String = {
        setenv("SDLAB_KEYCHAIN", NSTemporaryDirectory() + "security-tests-ios-" + UUID().uuidString, 0)
        atexit {
            guard let folder = getenv("SDLAB_KEYCHAIN") else { return }
            try? FileManager.default.removeItem(atPath: String(cString: folder))
        }
        return String(cString: getenv("SDLAB_KEYCHAIN"))
    }()

    init() { _ = Self.folder }

    @Test func theSnippetRunsAsOnIOS() throws {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: "com.contoso.notes",
            kSecAttrAccount as String: "token",
            kSecValueData as String: Data("secret".utf8),
        ]
        let status = SecItemAdd(query as CFDictionary, nil)
        #expect(status == errSecSuccess)

        let match: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: "com.contoso.notes",
            kSecAttrAccount as String: "token",
        ]
        let data = Data("rotated".utf8)
        let again = SecItemAdd(query as CFDictionary, nil)
        #expect(again == errSecDuplicateItem)
        if again == errSecDuplicateItem {
            #expect(
                SecItemUpdate(match as CFDictionary, [kSecValueData as String: data] as CFDictionary) == errSecSuccess)
        }

        var result: CFTypeRef?
        let found = SecItemCopyMatching(
            [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: "com.contoso.notes",
                kSecReturnData as String: true,
                kSecMatchLimit as String: kSecMatchLimitOne,
            ] as CFDictionary, &result)
        #expect(found == errSecSuccess)
        #expect(result as? Data == data)

        let service: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "com.contoso.notes",
        ]
        #expect(SecItemDelete(service as CFDictionary) == errSecSuccess)
        #expect(SecItemCopyMatching(match as CFDictionary, nil) == errSecItemNotFound)
        #expect(FileManager.default.fileExists(atPath: Self.folder + "/items.json"))
    }

    @Test func attributesReadBackAsOnIOS() throws {
        let item: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: "com.contoso.notes",
            kSecAttrAccount as String: "profile",
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
            kSecUseDataProtectionKeychain as String: true,
            kSecValueData as String: Data("{}".utf8),
        ]
        #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
        defer { _ = SecItemDelete(item as CFDictionary) }

        var result: CFTypeRef?
        let query: [CFString: Any] = [
            kSecClass: kSecClassGenericPassword,
            kSecAttrAccount: "profile",
            kSecReturnAttributes: kCFBooleanTrue as Any,
            kSecReturnData: kCFBooleanTrue as Any,
            kSecMatchLimit: kSecMatchLimitAll,
        ]
        #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
        let items = try #require(result as? [[String: Any]])
        #expect(items.count == 1)
        #expect(items.first?[kSecAttrAccessible as String] as? String == kSecAttrAccessibleAfterFirstUnlock as String)
        #expect(items.first?[kSecValueData as String] as? Data == Data("{}".utf8))
        let dictionary = try #require((result as? NSArray)?.firstObject as? NSDictionary)
        #expect(dictionary[kSecAttrAccount] as? String == "profile")
    }

    @Test func errorsReadAsOnIOS() {
        let status = SecItemCopyMatching([kSecAttrAccount as String: "token"] as CFDictionary, nil)
        #expect(status == errSecParam)
        let message = SecCopyErrorMessageString(status, nil) as String?
        #expect(message == "One or more parameters passed to a function were not valid.")
    }
}
