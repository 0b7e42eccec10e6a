import CoreFoundationDarwin
import Foundation

/// The keys of SecItem dictionaries as Swift strings, which the keychain compares and stores.
enum Key {
    static let itemClass = kSecClass as String
    static let service = kSecAttrService as String
    static let account = kSecAttrAccount as String
    static let accessGroup = kSecAttrAccessGroup as String
    static let server = kSecAttrServer as String
    static let `protocol` = kSecAttrProtocol as String
    static let path = kSecAttrPath as String
    static let port = kSecAttrPort as String
    static let applicationTag = kSecAttrApplicationTag as String
    static let keyClass = kSecAttrKeyClass as String
    static let accessible = kSecAttrAccessible as String
    static let synchronizable = kSecAttrSynchronizable as String
    static let creationDate = kSecAttrCreationDate as String
    static let modificationDate = kSecAttrModificationDate as String
    static let valueData = kSecValueData as String
    static let valueRef = kSecValueRef as String
    static let valuePersistentRef = kSecValuePersistentRef as String
    static let returnData = kSecReturnData as String
    static let returnAttributes = kSecReturnAttributes as String
    static let returnRef = kSecReturnRef as String
    static let returnPersistentRef = kSecReturnPersistentRef as String
    static let matchLimit = kSecMatchLimit as String
    static let useDataProtectionKeychain = kSecUseDataProtectionKeychain as String
}

/// One attribute's value as the keychain keeps it.
enum AttributeValue: Hashable, Sendable {
    case string(String)
    case number(Int)
    case bool(Bool)
    case data(Data)
    case date(Date)

    /// The Foundation object iOS hands back for it (CFString, CFNumber, CFBoolean, CFData, CFDate).
    var object: AnyObject {
        switch self {
        case .string(let string): NSString(string: string)
        case .number(let number): NSNumber(value: number)
        case .bool(let bool): NSNumber(value: bool)
        case .data(let data): NSData(data: data)
        case .date(let date): NSDate(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate)
        }
    }
}

/// Stored as `{"string": "…"}`, `{"data": "base64…"}`, …: the file says each value's type, so it
/// reads back without knowing the attribute.
extension AttributeValue: Codable {
    private enum Kind: String, CodingKey {
        case string, number, bool, data, date
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Kind.self)
        guard container.allKeys.count == 1, let kind = container.allKeys.first else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "an attribute value has one type"))
        }
        switch kind {
        case .string: self = .string(try container.decode(String.self, forKey: kind))
        case .number: self = .number(try container.decode(Int.self, forKey: kind))
        case .bool: self = .bool(try container.decode(Bool.self, forKey: kind))
        case .data: self = .data(try container.decode(Data.self, forKey: kind))
        case .date: self = .date(try container.decode(Date.self, forKey: kind))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Kind.self)
        switch self {
        case .string(let string): try container.encode(string, forKey: .string)
        case .number(let number): try container.encode(number, forKey: .number)
        case .bool(let bool): try container.encode(bool, forKey: .bool)
        case .data(let data): try container.encode(data, forKey: .data)
        case .date(let date): try container.encode(date, forKey: .date)
        }
    }
}

/// The type an attribute's value must have; a value of another type is refused (errSecParam).
enum AttributeKind: Sendable {
    case string
    /// A string from a fixed set, such as the `kSecAttrAccessible…` values.
    case oneOf(Set<String>)
    case number
    /// CFData; a string is taken as its UTF-8 bytes, as iOS converts it.
    case data
    case date

    /// The attribute's value, or nil when `object` is not of this kind.
    func value(_ object: Any) -> AttributeValue? {
        switch self {
        case .string: (object as? String).map(AttributeValue.string)
        case .oneOf(let allowed): (object as? String).flatMap { allowed.contains($0) ? .string($0) : nil }
        case .number: (object as? Int).map(AttributeValue.number)
        case .data: (object as? Data).map(AttributeValue.data) ?? (object as? String).map { .data(Data($0.utf8)) }
        case .date: (object as? Date).map(AttributeValue.date)
        }
    }

    /// What an item has for this attribute when it was added without it: iOS stores the
    /// attributes of a primary key as empty rather than missing, so a later search for the empty
    /// value finds the item.
    var emptyValue: AttributeValue? {
        switch self {
        case .string: .string("")
        case .number: .number(0)
        case .data: .data(Data())
        case .oneOf, .date: nil
        }
    }
}

/// The attributes this keychain knows, each with its kind; `kSecAttrSynchronizable` is read
/// apart, as a search may also give `kSecAttrSynchronizableAny`.
enum Attribute {
    static let kinds: [String: AttributeKind] = [
        Key.service: .string,
        Key.account: .string,
        Key.accessGroup: .string,
        kSecAttrLabel as String: .string,
        kSecAttrGeneric as String: .data,
        kSecAttrDescription as String: .string,
        kSecAttrComment as String: .string,
        Key.server: .string,
        Key.protocol: .string,
        Key.path: .string,
        Key.port: .number,
        Key.applicationTag: .data,
        Key.keyClass: .string,
        Key.accessible: .oneOf(accessibleValues),
        Key.creationDate: .date,
        Key.modificationDate: .date,
    ]

    static let accessibleValues: Set<String> = [
        kSecAttrAccessibleWhenUnlocked as String,
        kSecAttrAccessibleAfterFirstUnlock as String,
        kSecAttrAccessibleWhenUnlockedThisDeviceOnly as String,
        kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String,
        kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly as String,
    ]

    /// Attributes only the keychain sets: given to an add or an update, they are ignored.
    static let setByKeychain: Set<String> = [Key.creationDate, Key.modificationDate]
}
