import Crypto
import Foundation
import ManagedApp
import SharedDevice
import SharedDeviceSDK
import Testing

/// Docs/behaviour.md §8: the container's records, their canaries and who can read them.
@Suite struct ContainerTests {
    static func withContainer(_ body: (Container) throws -> Void) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sdlab-container-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try body(Container(root: root, app: "mail"))
    }

    static func allFiles(_ root: String) -> [String] {
        (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []).map { root + "/" + $0 }
    }

    @Test func everyKindIsReadBackWithItsKeysOnly() throws {
        try Self.withContainer { container in
            let keys = Container.Keys(data: try container.keychain.key("data"), external: SymmetricKey(size: .bits256))
            var written: [Canary] = []
            for kind in RecordKind.allCases { written += try container.write(kind, count: 2, user: "cou1", keys: keys) }
            #expect(Set(container.readable(with: keys)) == Set(written))
            // Without keys only the unencrypted kinds can be read.
            #expect(Set(container.readable(with: .init()).map(\.kind)) == [.plain, .preferences, .common])
            // A wrong external key opens nothing external.
            let other = Container.Keys(data: keys.data, external: SymmetricKey(size: .bits256))
            #expect(!container.readable(with: other).contains { $0.kind == .external })
        }
    }

    @Test func sealedRecordsHoldNoClearCanaryAndEverythingIsPrivate() throws {
        try Self.withContainer { container in
            let keys = Container.Keys(data: try container.keychain.key("data"), external: SymmetricKey(size: .bits256))
            try container.write(.sensitive, count: 1, user: "cou1", keys: keys)
            try container.write(.external, count: 1, user: "cou1", keys: keys)
            try container.write(.plain, count: 1, user: "cou1", keys: keys)
            for file in Self.allFiles(container.root) {
                let attributes = try FileManager.default.attributesOfItem(atPath: file)
                let mode = (attributes[.posixPermissions] as? Int) ?? 0
                let isFolder = attributes[.type] as? FileAttributeType == .typeDirectory
                #expect(mode == (isFolder ? 0o700 : 0o600), "\(file) has mode \(String(mode, radix: 8))")
                if file.hasSuffix(".sealed") {
                    let text = String(decoding: FileManager.default.contents(atPath: file) ?? Data(), as: UTF8.self)
                    #expect(!text.contains(Canary.prefix), "\(file)")
                }
            }
        }
    }

    @Test func numbersContinueAndUsersStayApart() throws {
        try Self.withContainer { container in
            let keys = Container.Keys(data: try container.keychain.key("data"))
            for kind in [RecordKind.sensitive, .plain, .preferences, .common] {
                _ = try container.write(kind, count: 2, user: "cou1", keys: keys)
                #expect(try container.write(kind, count: 1, user: "cou1", keys: keys).map(\.number) == [3], "\(kind)")
                #expect(try container.write(kind, count: 1, user: "cou2", keys: keys).map(\.number) == [1], "\(kind)")
            }
        }
    }

    @Test func deletingKindsKeepsTheOthers() throws {
        try Self.withContainer { container in
            let keys = Container.Keys(data: try container.keychain.key("data"), external: SymmetricKey(size: .bits256))
            for kind in RecordKind.allCases { try container.write(kind, count: 1, user: "cou1", keys: keys) }
            try container.delete(Set(RecordKind.allCases).subtracting([.preferences]))
            #expect(container.readable(with: keys).map(\.kind) == [.preferences])
            try container.delete([.preferences])
            #expect(container.readable(with: keys).isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: container.path(.documents)).isEmpty)
        }
    }

    @Test func aDeletedKeyLeavesItsRecordsUnreadable() throws {
        try Self.withContainer { container in
            let key = try container.keychain.key("sdk-data")
            #expect(container.keychain.existingKey("sdk-data") == key)
            try container.write(.sensitive, count: 1, user: "cou1", keys: .init(data: key))
            try container.keychain.deleteKey("sdk-data")
            #expect(container.keychain.existingKey("sdk-data") == nil)
            #expect(container.readable(with: .init(data: container.keychain.existingKey("sdk-data"))).isEmpty)
            #expect(throws: Container.MissingKey.self) {
                try container.write(.sensitive, count: 1, user: "cou1", keys: .init())
            }
        }
    }
}
