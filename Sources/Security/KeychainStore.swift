import CoreFoundationDarwin
import FacadeCore
import Foundation
import Synchronization

/// An app's keychain: the four SecItem calls over the items of one folder's `ItemsFile`. The
/// calls of a process take turns (one lock for every keychain), so that each reads, changes and
/// writes the file without another call in between.
struct KeychainStore: Sendable {
    let file: ItemsFile
    /// The access group of an item added without one; on iOS the app's own.
    let defaultAccessGroup: String

    private static let turns = Mutex(())

    init(folder: String, defaultAccessGroup: String) {
        self.file = ItemsFile(folder: folder)
        self.defaultAccessGroup = defaultAccessGroup
    }

    func add(_ attributes: NSDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
        result?.pointee = nil
        return status { () throws(KeychainFailure) in
            let request = try ItemRequest(attributes, for: .add)
            let item = request.newItem(accessGroup: defaultAccessGroup, at: Date())
            try changingItems { items throws(KeychainFailure) in
                guard !items.contains(where: { $0.primaryKey == item.primaryKey }) else { throw .duplicate }
                items.append(item)
            }
            result?.pointee = request.result(for: [item])
        }
    }

    func copyMatching(_ query: NSDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
        result?.pointee = nil
        return status { () throws(KeychainFailure) in
            let request = try ItemRequest(query, for: .search)
            let found = try readingItems().filter(request.matches)
            guard !found.isEmpty else { throw .notFound }
            result?.pointee = request.result(for: Array(found.prefix((request.limit ?? .one).count)))
        }
    }

    /// Changes every item the query finds, or none: not when one would then share its primary
    /// key with another item.
    func update(_ query: NSDictionary, _ attributesToUpdate: NSDictionary) -> OSStatus {
        status { () throws(KeychainFailure) in
            let request = try ItemRequest(query, for: .updateQuery)
            let changes = try ItemRequest(attributesToUpdate, for: .changes)
            let now = Date()
            try changingItems { items throws(KeychainFailure) in
                let found = items.indices.filter { request.matches(items[$0]) }
                guard !found.isEmpty else { throw .notFound }
                var updated = items
                for index in found { updated[index] = changes.applied(to: items[index], at: now) }
                guard updated.primaryKeysAreUnique else { throw .duplicate }
                items = updated
            }
        }
    }

    /// Deletes every item the query finds.
    func delete(_ query: NSDictionary) -> OSStatus {
        status { () throws(KeychainFailure) in
            let request = try ItemRequest(query, for: .delete)
            try changingItems { items throws(KeychainFailure) in
                let kept = items.filter { !request.matches($0) }
                guard kept.count < items.count else { throw .notFound }
                items = kept
            }
        }
    }

    private func readingItems() throws(KeychainFailure) -> [StoredItem] {
        try Self.turns.withLock { _ throws(KeychainFailure) in try file.load() }
    }

    /// Loads the items, lets `change` change them and saves them, in one turn. Nothing is saved
    /// when `change` fails.
    private func changingItems(
        _ change: (inout [StoredItem]) throws(KeychainFailure) -> Void
    ) throws(KeychainFailure) {
        try Self.turns.withLock { _ throws(KeychainFailure) in
            var items = try file.load()
            try change(&items)
            try file.save(items)
        }
    }
}
