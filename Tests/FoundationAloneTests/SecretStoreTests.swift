import Foundation
import Testing

/// The process's keychain for tests: the folder `SDLAB_KEYCHAIN` names. The first suite that
/// needs one names it, every suite of the test process shares it (each with services of its
/// own), and it is removed when the process exits.
enum TestKeychain {
    static let folder: String = {
        setenv("SDLAB_KEYCHAIN", NSTemporaryDirectory() + "foundation-alone-" + UUID().uuidString, 0)
        atexit {
            guard let folder = getenv("SDLAB_KEYCHAIN") else { return }
            try? FileManager.default.removeItem(atPath: String(cString: folder))
        }
        return String(cString: getenv("SDLAB_KEYCHAIN"))
    }()
}

/// A keychain helper whose file imports Foundation alone, as on iOS, over the test keychain.
/// Each test has a service of its own, so that they may run at once.
@Suite("Keychain helper importing Foundation alone")
struct SecretStoreTests {
    private let store = SecretStore(service: "com.contoso.foundation-alone." + UUID().uuidString)

    init() { _ = TestKeychain.folder }

    @Test func aSecretRoundTrips() throws {
        defer { try? store.removeAll() }
        #expect(try store.string(for: "token") == nil)
        try store.set("first", for: "token")
        #expect(try store.string(for: "token") == "first")
        try store.set("second", for: "token")
        #expect(try store.string(for: "token") == "second")
        try store.set("other", for: "refresh")
        #expect(try store.allAccounts() == ["refresh", "token"])
        try store.remove("token")
        #expect(try store.string(for: "token") == nil)
        #expect(try store.allAccounts() == ["refresh"])
    }

    @Test func theSecretIsInTheKeychainFile() throws {
        defer { try? store.removeAll() }
        try store.set("canary-7f3a", for: "token")
        let file = try String(contentsOfFile: TestKeychain.folder + "/items.json", encoding: .utf8)
        #expect(file.contains(Data("canary-7f3a".utf8).base64EncodedString()))
    }

    @Test func aProtectedSecretIsReadLikeAnyOther() throws {
        defer { try? store.removeAll() }
        try store.setProtected(Data("pin".utf8), for: "pin")
        #expect(try store.data(for: "pin", prompt: "Unlock your notes") == Data("pin".utf8))
        try store.setProtected(Data("new pin".utf8), for: "pin")
        #expect(try store.data(for: "pin") == Data("new pin".utf8))
        try store.removeAll()
        #expect(try store.allAccounts().isEmpty)
    }

    @Test func anAccessControlThatCannotBeMadeThrowsItsCFError() {
        var error: Unmanaged<CFError>?
        let access = SecAccessControlCreateWithFlags(
            kCFAllocatorDefault, kSecAttrAccessibleWhenUnlocked, [.userPresence, .devicePasscode], &error)
        #expect(access == nil)
        let thrown = error!.takeRetainedValue() as Error
        #expect((thrown as NSError).code == Int(errSecParam))
        #expect((thrown as NSError).domain == NSOSStatusErrorDomain)
    }

    @Test func statusesAndCFNamesReadAsOnIOS() {
        let status: OSStatus = SecItemDelete(
            [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "nobody"] as CFDictionary)
        #expect(status == errSecItemNotFound)
        #expect(noErr == errSecSuccess)
        #expect(kCFAllocatorDefault == nil)
        #expect(kCFBooleanTrue == true as NSNumber)
        let key: CFString = kSecAttrAccount
        let values: [CFString: CFTypeRef] = [key: "ann" as CFString]
        let dictionary = values as CFDictionary
        #expect(dictionary[kSecAttrAccount] as? String == "ann")
        #expect(SecCopyErrorMessageString(status, nil) as String? != nil)
    }
}
