import CoreFoundationDarwin
import Foundation

/// The kinds of item a keychain holds (`kSecClass`), each with the attributes that tell its
/// items apart: its primary key, which no two items share.
enum ItemClass: String, Codable, Sendable {
    case genericPassword = "genp"
    case internetPassword = "inet"
    case certificate = "cert"
    case key = "keys"
    case identity = "idnt"

    /// The attributes of the primary key besides the access group and synchronizable, which
    /// every class has in it.
    var primaryKey: [String] {
        switch self {
        case .genericPassword: [Key.service, Key.account]
        case .internetPassword:
            [Key.server, Key.account, Key.protocol, Key.authenticationType, Key.securityDomain, Key.port, Key.path]
        case .key: [Key.applicationTag, Key.keyClass]
        case .certificate, .identity: []
        }
    }

    /// A certificate is told apart by its contents (its issuer and serial number are in them).
    var dataIsInPrimaryKey: Bool { self == .certificate || self == .identity }
}

/// One keychain item as the file holds it.
struct StoredItem: Codable, Hashable, Sendable {
    var itemClass: ItemClass
    var attributes: [String: AttributeValue]
    /// The secret (`kSecValueData`); nil when the item was added without one.
    var data: Data?

    private enum CodingKeys: String, CodingKey {
        case itemClass = "class"
        case attributes, data
    }

    var isSynchronizable: Bool { attributes[Key.synchronizable] == .bool(true) }

    /// What no other item may share with it, each attribute as searches compare it.
    var primaryKey: PrimaryKey {
        let names = itemClass.primaryKey + [Key.accessGroup, Key.synchronizable]
        var key: [String: AttributeValue] = [:]
        for name in names { key[name] = attributes[name].map { Attribute.compared(name, $0) } }
        return PrimaryKey(itemClass: itemClass, attributes: key, data: itemClass.dataIsInPrimaryKey ? data : nil)
    }

    struct PrimaryKey: Hashable, Codable {
        let itemClass: ItemClass
        let attributes: [String: AttributeValue]
        let data: Data?
    }

    /// The item's persistent reference (`kSecValuePersistentRef`): its primary key, encoded,
    /// which no other item shares; an app keeps it and finds the item by it across launches.
    var persistentReference: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(primaryKey)) ?? Data()
    }

    /// Its attributes as iOS returns them: keyed by the constants' strings, its class among them,
    /// and its secret under `kSecValueData` when `withData`.
    func attributeDictionary(withData: Bool) -> NSMutableDictionary {
        let dictionary = NSMutableDictionary()
        for (name, value) in attributes { dictionary[NSString(string: name)] = value.object }
        dictionary[kSecClass] = NSString(string: itemClass.rawValue)
        if withData { dictionary[kSecValueData] = NSData(data: data ?? Data()) }
        return dictionary
    }
}

extension [StoredItem] {
    /// Whether no two items share a primary key.
    var primaryKeysAreUnique: Bool { Set(map(\.primaryKey)).count == count }
}
