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
    static let accessControl = kSecAttrAccessControl as String
    static let securityDomain = kSecAttrSecurityDomain as String
    static let authenticationType = kSecAttrAuthenticationType as String
    static let persistentReference = kSecAttrPersistentReference as String
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
    static let matchCaseInsensitive = kSecMatchCaseInsensitive as String
    static let useDataProtectionKeychain = kSecUseDataProtectionKeychain as String
    static let useItemList = kSecUseItemList as String
    static let useOperationPrompt = kSecUseOperationPrompt as String
    static let useNoAuthenticationUI = kSecUseNoAuthenticationUI as String
    static let useAuthenticationUI = kSecUseAuthenticationUI as String
    static let useAuthenticationContext = kSecUseAuthenticationContext as String

    /// Certificate matching, which this keychain does not have.
    static let certificateMatching: Set<String> = [
        kSecMatchPolicy as String, kSecMatchItemList as String, kSecMatchSearchList as String,
        kSecMatchIssuers as String, kSecMatchEmailAddressIfPresent as String, kSecMatchSubjectContains as String,
        kSecMatchTrustedOnly as String, kSecMatchValidOnDate as String,
    ]

    static let authenticationUIValues: Set<String> = [
        kSecUseAuthenticationUIAllow as String, kSecUseAuthenticationUIFail as String,
        kSecUseAuthenticationUISkip as String,
    ]
}

/// One attribute's value as the keychain keeps it.
enum AttributeValue: Hashable, Sendable {
    case string(String)
    case number(Int)
    case bool(Bool)
    case data(Data)
    case date(Date)
    /// A `SecAccessControl`, by what it was made from.
    case accessControl(protection: String, flags: UInt)

    /// The object iOS hands back for it (CFString, CFNumber, CFBoolean, CFData, CFDate,
    /// SecAccessControl).
    var object: AnyObject {
        switch self {
        case .string(let string): NSString(string: string)
        case .number(let number): NSNumber(value: number)
        case .bool(let bool): NSNumber(value: bool)
        case .data(let data): NSData(data: data)
        case .date(let date): NSDate(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate)
        case .accessControl(let protection, let flags):
            SecAccessControl(protection: protection, flags: SecAccessControlCreateFlags(rawValue: flags))
        }
    }

    /// The bytes Apple's keychain compares for an attribute it keeps as bytes (`copyData` in
    /// SecDbItem.c): a string's UTF-8, a number's 32-bit value, data as it is.
    var bytes: Data? {
        switch self {
        case .string(let string): Data(string.utf8)
        case .data(let data): data
        case .number(let number): withUnsafeBytes(of: Int32(truncatingIfNeeded: number).littleEndian) { Data($0) }
        case .bool, .date, .accessControl: nil
        }
    }

    /// Whether a search for `self` under attribute `name` finds an item holding `stored`: the
    /// same value as the attribute compares it, or with `caseInsensitive` the same string
    /// whatever its letters' case.
    func finds(_ stored: AttributeValue?, as name: String, caseInsensitive: Bool) -> Bool {
        guard let stored else { return false }
        if caseInsensitive, case .string(let wanted) = self, case .string(let held) = stored {
            return wanted.caseInsensitiveCompare(held) == .orderedSame
        }
        return Attribute.compared(name, self) == Attribute.compared(name, stored)
    }
}

/// Stored as `{"string": "…"}`, `{"data": "base64…"}`, …: the file says each value's type, so it
/// reads back without knowing the attribute.
extension AttributeValue: Codable {
    private enum Kind: String, CodingKey {
        case string, number, bool, data, date, accessControl
    }

    private struct AccessControlFields: Codable {
        let protection: String
        let flags: UInt
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
        case .accessControl:
            let fields = try container.decode(AccessControlFields.self, forKey: kind)
            self = .accessControl(protection: fields.protection, flags: fields.flags)
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
        case .accessControl(let protection, let flags):
            try container.encode(AccessControlFields(protection: protection, flags: flags), forKey: .accessControl)
        }
    }
}

/// How an attribute's value is taken, kept and compared: the kinds of Apple's keychain schema
/// (SecItemSchema.c), each converting a value as its server does (SecDbItem.c). A value it cannot
/// convert is refused (errSecParam).
enum AttributeKind: Sendable {
    /// Text (the access group): a string, or data that is UTF-8.
    case string
    /// A string from a fixed set, such as the `kSecAttrAccessible…` values.
    case oneOf(Set<String>)
    /// A number; a boolean is 0 or 1, a string of digits is its number, and any other string is
    /// kept as the string (`kSecAttrProtocolHTTPS` is "htps", `kSecAttrKeyTypeRSA` is "42").
    case number
    /// A boolean; a number is taken as false when 0, as CoreFoundation converts it.
    case bool
    /// Bytes (the account, the service, the label, …): a string, data or a number, kept as the
    /// type given and handed back as it, but searched for and told apart by its bytes, as Apple's
    /// table holds the SHA-1 of them: the string "a" finds the data "a", and the two cannot
    /// both be an item's key.
    case blob
    /// CFData; a string is taken as its UTF-8 bytes and a number as its 32-bit value's.
    case data
    case date
    case accessControl

    /// The attribute's value, or nil when `object` is not of this kind.
    func value(_ object: Any) -> AttributeValue? {
        switch self {
        case .string: (object as? String).map(AttributeValue.string) ?? Self.text(of: object).map(AttributeValue.string)
        case .oneOf(let allowed): (object as? String).flatMap { allowed.contains($0) ? .string($0) : nil }
        case .number: Self.number(object)
        case .bool: ((object as? Bool) ?? (object as? Int).map { $0 != 0 }).map(AttributeValue.bool)
        case .blob: Self.blob(object)
        case .data: Self.blob(object).flatMap(\.bytes).map(AttributeValue.data)
        case .date: (object as? Date).map(AttributeValue.date)
        case .accessControl:
            (object as? SecAccessControl).map { .accessControl(protection: $0.protection, flags: $0.flags.rawValue) }
        }
    }

    /// `value` as searches and primary keys compare it: an attribute kept as bytes by its bytes.
    func compared(_ value: AttributeValue) -> AttributeValue {
        guard case .blob = self, let bytes = value.bytes else { return value }
        return .data(bytes)
    }

    /// What an item has for this attribute when it was added without it: iOS stores the
    /// attributes of a primary key as empty rather than missing (bytes as empty data), so a
    /// later search for the empty value finds the item.
    var emptyValue: AttributeValue? {
        switch self {
        case .string: .string("")
        case .number: .number(0)
        case .blob, .data: .data(Data())
        case .oneOf, .bool, .date, .accessControl: nil
        }
    }

    /// UTF-8 data as its text.
    private static func text(of object: Any) -> String? {
        (object as? Data).flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// A number, a boolean as 0 or 1, a string of digits that reads back the same as its
    /// number; another string as it is (`copyNumber`).
    private static func number(_ object: Any) -> AttributeValue? {
        if let number = object as? Int { return .number(number) }
        if let bool = object as? Bool { return .number(bool ? 1 : 0) }
        guard let string = object as? String else { return nil }
        guard let number = Int32(string), String(number) == string else { return .string(string) }
        return .number(Int(number))
    }

    /// Data, a string or a number, as given (`copyBlob`).
    private static func blob(_ object: Any) -> AttributeValue? {
        if let data = object as? Data { return .data(data) }
        if let string = object as? String { return .string(string) }
        return (object as? Int).map(AttributeValue.number)
    }
}

/// The attributes this keychain knows, each with its kind: every attribute of SecItem.h on
/// iOS, of the kind Apple's schema gives it (its booleans are numbers there; here they stay
/// booleans). `kSecAttrSynchronizable` is read apart, as a search may also give
/// `kSecAttrSynchronizableAny`.
enum Attribute {
    static let kinds: [String: AttributeKind] = [
        // Every class
        Key.accessible: .oneOf(accessibleValues),
        Key.accessControl: .accessControl,
        Key.accessGroup: .string,
        Key.creationDate: .date,
        Key.modificationDate: .date,
        kSecAttrLabel as String: .blob,
        // Passwords
        kSecAttrDescription as String: .blob,
        kSecAttrComment as String: .blob,
        kSecAttrCreator as String: .number,
        // Also `kSecAttrKeyType`, the same key.
        kSecAttrType as String: .number,
        kSecAttrIsInvisible as String: .bool,
        kSecAttrIsNegative as String: .bool,
        Key.account: .blob,
        Key.service: .blob,
        kSecAttrGeneric as String: .blob,
        Key.securityDomain: .blob,
        Key.server: .blob,
        Key.protocol: .number,
        Key.authenticationType: .blob,
        Key.port: .number,
        Key.path: .blob,
        // Certificates
        kSecAttrCertificateType as String: .number,
        kSecAttrCertificateEncoding as String: .number,
        kSecAttrSubject as String: .data,
        kSecAttrIssuer as String: .data,
        kSecAttrSerialNumber as String: .data,
        kSecAttrSubjectKeyID as String: .data,
        kSecAttrPublicKeyHash as String: .data,
        // Keys
        Key.keyClass: .number,
        kSecAttrApplicationLabel as String: .data,
        Key.applicationTag: .blob,
        kSecAttrKeySizeInBits as String: .number,
        kSecAttrEffectiveKeySize as String: .number,
        kSecAttrIsPermanent as String: .bool,
        kSecAttrIsSensitive as String: .bool,
        kSecAttrIsExtractable as String: .bool,
        kSecAttrCanEncrypt as String: .bool,
        kSecAttrCanDecrypt as String: .bool,
        kSecAttrCanDerive as String: .bool,
        kSecAttrCanSign as String: .bool,
        kSecAttrCanVerify as String: .bool,
        kSecAttrCanWrap as String: .bool,
        kSecAttrCanUnwrap as String: .bool,
        kSecAttrSyncViewHint as String: .string,
        kSecAttrTokenID as String: .string,
    ]

    /// Every protection an item may have, the two Apple deprecated among them.
    static let accessibleValues: Set<String> = [
        kSecAttrAccessibleWhenUnlocked as String,
        kSecAttrAccessibleAfterFirstUnlock as String,
        kSecAttrAccessibleAlways as String,
        kSecAttrAccessibleWhenUnlockedThisDeviceOnly as String,
        kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String,
        kSecAttrAccessibleAlwaysThisDeviceOnly as String,
        kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly as String,
    ]

    /// `value` of attribute `name` as searches and primary keys compare it.
    static func compared(_ name: String, _ value: AttributeValue) -> AttributeValue {
        kinds[name]?.compared(value) ?? value
    }

    /// Attributes only the keychain sets: given to an add or an update, they are ignored.
    static let setByKeychain: Set<String> = [Key.creationDate, Key.modificationDate]
}
