import BuiltInApp
import Crypto
import Foundation
import SDKClients
import SharedDevice
import Synchronization
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

}

extension ContainerTests {
    /// An app killed in the middle of a write leaves its draft (`NAME.draft`): it holds that
    /// user's values, and a cleanup deletes it with the rest.
    @Test func aDraftLeftByAWriteCutShortGoesWithItsUsersRecords() throws {
        try Self.withContainer { container in
            try container.write(.plain, count: 2, user: "cou1", keys: .init())
            try container.write(.preferences, count: 1, user: "cou1", keys: .init())
            let drafts = [
                container.path(.documents) + "/cou1/plain-3-4.txt.draft",
                container.path(.preferences) + "/cou1.json.draft",
            ]
            for draft in drafts {
                try "SDLAB-CANARY/cou1/mail/plain/3 rec".write(toFile: draft, atomically: false, encoding: .utf8)
            }
            try container.delete([.plain, .preferences], of: "cou1")
            #expect(drafts.allSatisfy { !FileManager.default.fileExists(atPath: $0) })
            #expect(!FileManager.default.fileExists(atPath: container.path(.documents) + "/cou1"))
        }
    }
}

/// A link planted where a user's records go (by a hook, or anything else running as the user)
/// is never followed: records are not written through it, and a cleanup removes the link
/// rather than what it points to.
@Suite struct PlantedLinkTests {
    static func withOutside(_ body: (String) throws -> Void) throws {
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sdlab-outside-\(UUID().uuidString)"
        )
        .path
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: outside) }
        try "not the app's\n".write(toFile: outside + "/plain-1-1.txt", atomically: true, encoding: .utf8)
        try body(outside)
    }

    static func outsideIsUntouched(_ outside: String) -> Bool {
        (try? FileManager.default.contentsOfDirectory(atPath: outside)) == ["plain-1-1.txt"]
            && (try? String(contentsOfFile: outside + "/plain-1-1.txt", encoding: .utf8)) == "not the app's\n"
    }

    @Test func aLinkInPlaceOfAUserFolderIsNotWrittenThroughAndIsRemovedByACleanup() throws {
        try Self.withOutside { outside in
            try ContainerTests.withContainer { container in
                try FileManager.default.createSymbolicLink(
                    atPath: container.path(.documents) + "/cou1", withDestinationPath: outside)
                #expect(throws: (any Error).self) { try container.write(.plain, count: 2, user: "cou1", keys: .init()) }
                #expect(Self.outsideIsUntouched(outside))
                try container.delete([.plain], of: "cou1")
                #expect(Self.outsideIsUntouched(outside))
                #expect(
                    !FileManager.default.fileExists(atPath: container.path(.documents) + "/cou1"), "the link is gone")
                // With the link gone, the user's records go to a folder of the container's own.
                try container.write(.plain, count: 1, user: "cou1", keys: .init())
                #expect(container.readable(with: .init()).map(\.user) == ["cou1"])
            }
        }
    }

    @Test func aWipeRemovesLinksWithoutFollowingThem() throws {
        try Self.withOutside { outside in
            try ContainerTests.withContainer { container in
                try container.write(.common, count: 1, user: "cou1", keys: .init())
                for folder in [Container.Folder.documents, .caches] {
                    try FileManager.default.createSymbolicLink(
                        atPath: container.path(folder) + "/cou2", withDestinationPath: outside)
                }
                try container.delete(Set(RecordKind.allCases))
                #expect(Self.outsideIsUntouched(outside))
                #expect(container.readable(with: .init()).isEmpty)
            }
        }
    }

    @Test func aLinkInPlaceOfAPreferencesFileIsReplacedNotWrittenThrough() throws {
        try Self.withOutside { outside in
            try ContainerTests.withContainer { container in
                try FileManager.default.createSymbolicLink(
                    atPath: container.path(.preferences) + "/cou1.json", withDestinationPath: outside + "/plain-1-1.txt"
                )
                #expect(!container.hasPreferences(of: "cou1"), "a link is not the user's preferences")
                try container.write(.preferences, count: 1, user: "cou1", keys: .init())
                #expect(Self.outsideIsUntouched(outside))
                #expect(container.hasPreferences(of: "cou1"))
                try container.delete([.preferences], of: "cou1")
                #expect(Self.outsideIsUntouched(outside))
            }
        }
    }
}

/// The numbers of the records the tests store: unique in the test process, as the host
/// numbers them unique on a device.
private let recordNumbers = Mutex(0)

extension Container {
    /// Stores `count` new records of `kind` for `user`, as the app stores those the host hands it.
    @discardableResult
    func write(_ kind: RecordKind, count: Int, user: String, keys: Keys) throws -> [Canary] {
        let first = recordNumbers.withLock { number in
            defer { number += count }
            return number + 1
        }
        let canaries = (first..<first + count).map { Canary(user: user, app: app, kind: kind, number: $0) }
        try store(canaries, keys: keys)
        return canaries
    }
}
