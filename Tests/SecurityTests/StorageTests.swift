import Foundation
import Testing

@testable import Security

/// The keychain's file: where it is, what it holds, and that it outlives the process.
@Suite("Keychain storage")
struct StorageTests {
    @Test func aNewStoreOverTheSameFolderFindsTheItems() throws {
        let keychain = try TemporaryKeychain.seeded()
        // What the app finds when it runs again: a new store, reading the folder afresh.
        let relaunched = KeychainStore(folder: keychain.folder, defaultAccessGroup: "com.contoso.notes")
        #expect(relaunched.secret(Seed.password("token", group: "group.a")) == "secret")
        #expect(relaunched.count([kSecClass as String: kSecClassGenericPassword]) == 3)
    }

    @Test func theFileIsPrivateInAPrivateFolder() throws {
        let keychain = try TemporaryKeychain.seeded()
        #expect(try permissions(keychain.store.file.path) == 0o600)
        #expect(try permissions(keychain.folder) == 0o700)
        #expect(try FileManager.default.contentsOfDirectory(atPath: keychain.folder) == ["items.json"])
    }

    @Test func theSecretsAreStoredInBase64() throws {
        let keychain = try TemporaryKeychain.seeded()
        let text = try String(contentsOfFile: keychain.store.file.path, encoding: .utf8)
        #expect(text.contains(Data("secret".utf8).base64EncodedString()))
        #expect(text.contains("\"svce\""))
    }

    @Test func aWriteThatFailsReturnsErrSecIOAndChangesNothing() throws {
        let keychain = try TemporaryKeychain.seeded()
        // A folder where the next save writes its temporary file: the write fails (even as root).
        try FileManager.default.createDirectory(
            atPath: keychain.store.file.path + ".tmp", withIntermediateDirectories: false)
        #expect(keychain.store.addItem(Seed.password("new")) == errSecIO)
        #expect(keychain.store.deleteItems(Seed.password("token")) == errSecIO)
        #expect(keychain.store.count([kSecClass as String: kSecClassGenericPassword]) == 3)
    }

    @Test func aTemporaryFileIsNeverFollowedThroughALink() throws {
        let keychain = try TemporaryKeychain.seeded()
        let elsewhere = keychain.folder + "-elsewhere"
        try FileManager.default.createSymbolicLink(
            atPath: keychain.store.file.path + ".tmp", withDestinationPath: elsewhere)
        #expect(keychain.store.addItem(Seed.password("new")) == errSecIO)
        #expect(!FileManager.default.fileExists(atPath: elsewhere))
    }

    @Test func anUnreadableFileIsReportedAndKept() throws {
        let keychain = try TemporaryKeychain.seeded()
        let garbage = Data("not json".utf8)
        try garbage.write(to: URL(fileURLWithPath: keychain.store.file.path))
        #expect(keychain.store.find(Seed.password("token")).status == errSecDecode)
        #expect(keychain.store.addItem(Seed.password("new")) == errSecDecode)
        #expect(FileManager.default.contents(atPath: keychain.store.file.path) == garbage)
    }

    @Test func callsFromManyThreadsAllLand() async {
        let keychain = TemporaryKeychain()
        let store = keychain.store
        let statuses = await withTaskGroup(of: OSStatus.self) { group in
            for index in 0..<16 { group.addTask { store.addItem(Seed.password("account-\(index)")) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: errSecSuccess, count: 16))
        #expect(store.count([kSecClass as String: kSecClassGenericPassword]) == 16)
    }

    @Test func theFolderIsTheDevicesElseTheEnvironmentsElseNone() {
        #expect(keychainFolder(device: "/device", environment: "/env") == "/device")
        #expect(keychainFolder(device: nil, environment: "/env") == "/env")
        #expect(keychainFolder(device: "", environment: "/env") == "/env")
        #expect(keychainFolder(device: nil, environment: "") == nil)
        #expect(keychainFolder(device: nil, environment: nil) == nil)
    }

    @Test func withoutAKeychainEveryCallIsNotAvailable() {
        var result: CFTypeRef? = NSString(string: "left over")
        #expect(onKeychain(nil, &result) { _ in errSecSuccess } == errSecNotAvailable)
        #expect(result == nil)
    }

    private func permissions(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) & 0o777
    }
}
