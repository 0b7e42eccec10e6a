import CoreFoundationDarwin
import Foundation

/// A SecItem dictionary, checked: every key one this keychain knows, every value of its type,
/// and only the keys the call takes (`Use`). A dictionary that fails is refused with
/// errSecParam, or errSecUnimplemented for the references this keychain does not have.
struct ItemRequest: Sendable {
    /// Which call the dictionary is given to.
    enum Use {
        case add, search, updateQuery, delete
        /// An update's `attributesToUpdate`.
        case changes
    }

    enum Synchronizable: Equatable, Sendable {
        case only(Bool)
        /// `kSecAttrSynchronizableAny`, in a search.
        case any
    }

    enum MatchLimit: Equatable, Sendable {
        case count(Int)
        case all

        static let one = MatchLimit.count(1)
    }

    /// What a search hands back for each item found.
    struct Returns: Sendable {
        var data = false
        var attributes = false
        var persistentReference = false

        var anything: Bool { data || attributes || persistentReference }
    }

    /// The class acted on (an update's changes name none, and do not use it).
    private(set) var itemClass: ItemClass = .genericPassword
    /// The attributes given, without `kSecAttrSynchronizable`.
    private(set) var attributes: [String: AttributeValue] = [:]
    /// Not given: only items that are not synchronizable, as on iOS.
    private(set) var synchronizable: Synchronizable?
    private(set) var data: Data?
    /// `kSecValuePersistentRef`: the one item it names.
    private(set) var persistentReference: Data?
    private(set) var returns = Returns()
    private(set) var limit: MatchLimit?
    /// `kSecMatchCaseInsensitive`: string attributes match whatever their letters' case.
    private(set) var caseInsensitive = false

    init(_ dictionary: NSDictionary, for use: Use) throws(KeychainFailure) {
        var givenClass: ItemClass?
        for (key, value) in dictionary {
            guard let key = key as? String else { throw .param }
            if key == Key.itemClass {
                givenClass = try Self.itemClass(value)
            } else {
                try take(key, value)
            }
        }
        // Every call but an update's changes names the class it acts on; changes cannot move an
        // item to another class.
        guard (givenClass == nil) == (use == .changes) else { throw .param }
        itemClass = givenClass ?? itemClass
        try check(for: use)
    }

    /// Reads one key other than the class.
    private mutating func take(_ key: String, _ value: Any) throws(KeychainFailure) {
        switch key {
        case Key.synchronizable: synchronizable = try Self.synchronizable(value)
        case Key.valueData: data = try Self.data(value)
        case Key.returnData: returns.data = try Self.bool(value)
        case Key.returnAttributes: returns.attributes = try Self.bool(value)
        case Key.returnPersistentRef: returns.persistentReference = try Self.bool(value)
        case Key.valuePersistentRef: persistentReference = try Self.data(value)
        case Key.returnRef:
            if try Self.bool(value) { throw KeychainFailure(status: errSecUnimplemented) }
        case Key.valueRef, Key.persistentReference, Key.useItemList:
            throw KeychainFailure(status: errSecUnimplemented)
        case _ where Key.certificateMatching.contains(key): throw KeychainFailure(status: errSecUnimplemented)
        case Key.matchLimit: limit = try Self.matchLimit(value)
        case Key.matchCaseInsensitive: caseInsensitive = try Self.bool(value)
        // How the call would authenticate: nothing asks for authentication here, so each is
        // checked for its type and not used.
        case Key.useDataProtectionKeychain, Key.useNoAuthenticationUI: _ = try Self.bool(value)
        case Key.useOperationPrompt: guard value is String else { throw .param }
        case Key.useAuthenticationUI:
            guard let name = value as? String, Key.authenticationUIValues.contains(name) else { throw .param }
        case Key.useAuthenticationContext: break
        default:
            guard let kind = Attribute.kinds[key], let attribute = kind.value(value) else { throw .param }
            attributes[key] = attribute
        }
    }

    /// Refuses what the call does not take, as Apple's keychain server does; drops what it
    /// ignores.
    private mutating func check(for use: Use) throws(KeychainFailure) {
        try takeProtectionFromAccessControl()
        let searches = use == .search || use == .updateQuery || use == .delete
        if !searches { caseInsensitive = false }
        if synchronizable == .any && !searches { throw .param }
        switch use {
        case .add: limit = nil
        case .search: data = nil
        case .updateQuery:
            // An update returns nothing; its match limit is ignored, as every match is updated.
            if returns.anything { throw .param }
            (data, limit) = (nil, nil)
        case .delete:
            // Apple's server refuses a finite limit for a delete; what it returns is ignored.
            if limit != nil && limit != .all { throw .param }
            (data, limit, returns) = (nil, nil, Returns())
        case .changes:
            if returns.anything || limit != nil || persistentReference != nil { throw .param }
        }
        if use == .add || use == .changes {
            attributes = attributes.filter { !Attribute.setByKeychain.contains($0.key) }
        }
    }

    /// An access control sets the item's `kSecAttrAccessible` to its protection; a
    /// `kSecAttrAccessible` given beside it must be the same, as Apple's keychain server checks.
    private mutating func takeProtectionFromAccessControl() throws(KeychainFailure) {
        guard case .accessControl(let protection, _)? = attributes[Key.accessControl] else { return }
        let accessible = AttributeValue.string(protection)
        if let given = attributes[Key.accessible], given != accessible { throw .param }
        attributes[Key.accessible] = accessible
    }

    // MARK: Values

    private static func itemClass(_ value: Any) throws(KeychainFailure) -> ItemClass {
        guard let name = value as? String, let itemClass = ItemClass(rawValue: name) else { throw .param }
        return itemClass
    }

    private static func data(_ value: Any) throws(KeychainFailure) -> Data {
        guard let data = value as? Data else { throw .param }
        return data
    }

    private static func bool(_ value: Any) throws(KeychainFailure) -> Bool {
        guard let bool = value as? Bool else { throw .param }
        return bool
    }

    private static func synchronizable(_ value: Any) throws(KeychainFailure) -> Synchronizable {
        if let bool = value as? Bool { return .only(bool) }
        guard value as? String == kSecAttrSynchronizableAny as String else { throw .param }
        return .any
    }

    private static func matchLimit(_ value: Any) throws(KeychainFailure) -> MatchLimit {
        switch value {
        case let name as String where name == kSecMatchLimitOne as String: return .one
        case let name as String where name == kSecMatchLimitAll as String: return .all
        case let count as Int where count > 0: return .count(count)
        default: throw .param
        }
    }
}

// MARK: What a request does

extension ItemRequest {
    /// Whether `item` is one this search finds: of its class, with every attribute it gives.
    func matches(_ item: StoredItem) -> Bool {
        item.itemClass == itemClass
            && attributes.allSatisfy { name, wanted in
                wanted.finds(item.attributes[name], as: name, caseInsensitive: caseInsensitive)
            }
            && (synchronizable ?? .only(false)).admits(item.isSynchronizable)
            && persistentReference.map { $0 == item.persistentReference } ?? true
    }

    /// The item an add makes, with what iOS fills in: empty primary-key attributes, the app's
    /// access group, `kSecAttrAccessibleWhenUnlocked`, not synchronizable, and its dates.
    func newItem(accessGroup: String, at now: Date) -> StoredItem {
        var filled = attributes
        for name in itemClass.primaryKey where filled[name] == nil {
            filled[name] = Attribute.kinds[name]?.emptyValue
        }
        filled[Key.accessGroup] = filled[Key.accessGroup] ?? .string(accessGroup)
        filled[Key.accessible] = filled[Key.accessible] ?? .string(kSecAttrAccessibleWhenUnlocked as String)
        filled[Key.synchronizable] = .bool(synchronizable == .only(true))
        filled[Key.creationDate] = .date(now)
        filled[Key.modificationDate] = .date(now)
        return StoredItem(itemClass: itemClass, attributes: filled, data: data)
    }

    /// `item` with these changes made to it.
    func applied(to item: StoredItem, at now: Date) -> StoredItem {
        var changed = item
        changed.attributes.merge(attributes) { _, new in new }
        if case .only(let value) = synchronizable { changed.attributes[Key.synchronizable] = .bool(value) }
        if let data { changed.data = data }
        changed.attributes[Key.modificationDate] = .date(now)
        return changed
    }

    /// What a search hands back for `items` (already cut to its limit): nil when it asked for
    /// nothing; one object for a limit of one, else an array.
    func result(for items: [StoredItem]) -> CFTypeRef? {
        guard returns.anything else { return nil }
        let objects = items.map(resultObject(for:))
        return (limit ?? .one) == .one ? objects.first : NSArray(array: objects)
    }

    /// The secret or the persistent reference alone, as asked; else a dictionary of what was
    /// asked (the attributes, `kSecValueData`, `kSecValuePersistentRef`), as iOS answers.
    private func resultObject(for item: StoredItem) -> AnyObject {
        switch (returns.data, returns.attributes, returns.persistentReference) {
        case (true, false, false): return NSData(data: item.data ?? Data())
        case (false, false, true): return NSData(data: item.persistentReference)
        default:
            let dictionary =
                returns.attributes ? item.attributeDictionary(withData: returns.data) : NSMutableDictionary()
            if !returns.attributes && returns.data { dictionary[kSecValueData] = NSData(data: item.data ?? Data()) }
            if returns.persistentReference {
                dictionary[kSecValuePersistentRef] = NSData(data: item.persistentReference)
            }
            return dictionary
        }
    }
}

extension ItemRequest.Synchronizable {
    func admits(_ itemIsSynchronizable: Bool) -> Bool {
        switch self {
        case .only(let value): value == itemIsSynchronizable
        case .any: true
        }
    }
}

extension ItemRequest.MatchLimit {
    /// How many items at most.
    var count: Int {
        switch self {
        case .count(let count): count
        case .all: .max
        }
    }
}
