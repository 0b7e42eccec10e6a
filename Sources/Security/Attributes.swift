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

    /// Whether a search for `self` finds an item holding `stored`: the same value, or with
    /// `caseInsensitive` the same string whatever its letters' case.
    func finds(_ stored: AttributeValue?, caseInsensitive: Bool) -> Bool {
        guard caseInsensitive, case .string(let wanted) = self, case .string(let held)? = stored else {
            return self == stored
        }
        return wanted.caseInsensitiveCompare(held) == .orderedSame
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

/// The type an attribute's value must have; a value of another type is refused (errSecParam).
enum AttributeKind: Sendable {
    case string
    /// A string from a fixed set, such as the `kSecAttrAccessible…` values.
    case oneOf(Set<String>)
    case number
    /// A number, also given as a string of digits (the `kSecAttrKeyType…` values).
    case numberOrDigits
    /// A boolean; a number is taken as false when 0, as CoreFoundation converts it.
    case bool
    /// CFData; a string is taken as its UTF-8 bytes, as iOS converts it.
    case data
    case date
    case accessControl

    /// The attribute's value, or nil when `object` is not of this kind.
    func value(_ object: Any) -> AttributeValue? {
        switch self {
        case .string: (object as? String).map(AttributeValue.string)
        case .oneOf(let allowed): (object as? String).flatMap { allowed.contains($0) ? .string($0) : nil }
        case .number: (object as? Int).map(AttributeValue.number)
        case .numberOrDigits: ((object as? Int) ?? (object as? String).flatMap { Int($0) }).map(AttributeValue.number)
        case .bool: ((object as? Bool) ?? (object as? Int).map { $0 != 0 }).map(AttributeValue.bool)
        case .data: (object as? Data).map(AttributeValue.data) ?? (object as? String).map { .data(Data($0.utf8)) }
        case .date: (object as? Date).map(AttributeValue.date)
        case .accessControl:
            (object as? SecAccessControl).map { .accessControl(protection: $0.protection, flags: $0.flags.rawValue) }
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
        case .oneOf, .numberOrDigits, .bool, .date, .accessControl: nil
        }
    }
}

/// The attributes this keychain knows, each with its kind: every attribute of SecItem.h on
/// iOS. `kSecAttrSynchronizable` is read apart, as a search may also give
/// `kSecAttrSynchronizableAny`.
enum Attribute {
    static let kinds: [String: AttributeKind] = [
        // Every class
        Key.accessible: .oneOf(accessibleValues),
        Key.accessControl: .accessControl,
        Key.accessGroup: .string,
        Key.creationDate: .date,
        Key.modificationDate: .date,
        kSecAttrLabel as String: .string,
        // Passwords
        kSecAttrDescription as String: .string,
        kSecAttrComment as String: .string,
        kSecAttrCreator as String: .number,
        // Also `kSecAttrKeyType`, the same key.
        kSecAttrType as String: .numberOrDigits,
        kSecAttrIsInvisible as String: .bool,
        kSecAttrIsNegative as String: .bool,
        Key.account: .string,
        Key.service: .string,
        kSecAttrGeneric as String: .data,
        Key.securityDomain: .string,
        Key.server: .string,
        Key.protocol: .string,
        Key.authenticationType: .string,
        Key.port: .number,
        Key.path: .string,
        // Certificates
        kSecAttrCertificateType as String: .number,
        kSecAttrCertificateEncoding as String: .number,
        kSecAttrSubject as String: .data,
        kSecAttrIssuer as String: .data,
        kSecAttrSerialNumber as String: .data,
        kSecAttrSubjectKeyID as String: .data,
        kSecAttrPublicKeyHash as String: .data,
        // Keys
        Key.keyClass: .string,
        kSecAttrApplicationLabel as String: .data,
        Key.applicationTag: .data,
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

    /// Attributes only the keychain sets: given to an add or an update, they are ignored.
    static let setByKeychain: Set<String> = [Key.creationDate, Key.modificationDate]
}
