// The keys and values of SecItem dictionaries, with the strings Apple's Security framework gives
// them, so that a dictionary printed, stored or compared by string reads as on iOS. NSString is
// not Sendable on Linux (its mutable subclass is one), but each of these is an immutable string
// that is never replaced: safe to share between threads, as on iOS.

import CoreFoundationDarwin
import Foundation

// MARK: Classes

/// The key of an item's class; every SecItem dictionary but an update's changes has one.
nonisolated(unsafe) public let kSecClass: CFString = "class"
nonisolated(unsafe) public let kSecClassGenericPassword: CFString = "genp"
nonisolated(unsafe) public let kSecClassInternetPassword: CFString = "inet"
nonisolated(unsafe) public let kSecClassCertificate: CFString = "cert"
nonisolated(unsafe) public let kSecClassKey: CFString = "keys"
nonisolated(unsafe) public let kSecClassIdentity: CFString = "idnt"

// MARK: Attributes

nonisolated(unsafe) public let kSecAttrService: CFString = "svce"
nonisolated(unsafe) public let kSecAttrAccount: CFString = "acct"
nonisolated(unsafe) public let kSecAttrAccessGroup: CFString = "agrp"
nonisolated(unsafe) public let kSecAttrLabel: CFString = "labl"
/// Data of the app's own (CFData).
nonisolated(unsafe) public let kSecAttrGeneric: CFString = "gena"
nonisolated(unsafe) public let kSecAttrDescription: CFString = "desc"
nonisolated(unsafe) public let kSecAttrComment: CFString = "icmt"
nonisolated(unsafe) public let kSecAttrServer: CFString = "srvr"
nonisolated(unsafe) public let kSecAttrProtocol: CFString = "ptcl"
nonisolated(unsafe) public let kSecAttrPath: CFString = "path"
/// A number.
nonisolated(unsafe) public let kSecAttrPort: CFString = "port"
/// Data (a string is taken as its UTF-8 bytes).
nonisolated(unsafe) public let kSecAttrApplicationTag: CFString = "atag"
nonisolated(unsafe) public let kSecAttrKeyClass: CFString = "kcls"
/// One of the `kSecAttrAccessible…` values; `kSecAttrAccessibleWhenUnlocked` when not given.
nonisolated(unsafe) public let kSecAttrAccessible: CFString = "pdmn"
/// A boolean; in a search also `kSecAttrSynchronizableAny`. Not given means false.
nonisolated(unsafe) public let kSecAttrSynchronizable: CFString = "sync"
/// Set by the keychain when the item is added (a date).
nonisolated(unsafe) public let kSecAttrCreationDate: CFString = "cdat"
/// Set by the keychain when the item is added or updated (a date).
nonisolated(unsafe) public let kSecAttrModificationDate: CFString = "mdat"

// MARK: Attribute values

nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlocked: CFString = "ak"
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlock: CFString = "ck"
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = "aku"
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
nonisolated(unsafe) public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = "akpu"
/// In a search: synchronizable items and the others alike.
nonisolated(unsafe) public let kSecAttrSynchronizableAny: CFString = "syna"
nonisolated(unsafe) public let kSecAttrKeyClassPublic: CFString = "0"
nonisolated(unsafe) public let kSecAttrKeyClassPrivate: CFString = "1"
nonisolated(unsafe) public let kSecAttrKeyClassSymmetric: CFString = "2"
nonisolated(unsafe) public let kSecAttrProtocolHTTP: CFString = "http"
nonisolated(unsafe) public let kSecAttrProtocolHTTPS: CFString = "htps"

// MARK: Values

/// The item's secret (CFData).
nonisolated(unsafe) public let kSecValueData: CFString = "v_Data"
/// A SecKey, SecCertificate or SecIdentity object, which this keychain does not have.
nonisolated(unsafe) public let kSecValueRef: CFString = "v_Ref"
/// A persistent reference, which this keychain does not have.
nonisolated(unsafe) public let kSecValuePersistentRef: CFString = "v_PersistentRef"

// MARK: What a search returns

nonisolated(unsafe) public let kSecReturnData: CFString = "r_Data"
nonisolated(unsafe) public let kSecReturnAttributes: CFString = "r_Attributes"
nonisolated(unsafe) public let kSecReturnRef: CFString = "r_Ref"
nonisolated(unsafe) public let kSecReturnPersistentRef: CFString = "r_PersistentRef"

// MARK: How many a search returns

nonisolated(unsafe) public let kSecMatchLimit: CFString = "m_Limit"
nonisolated(unsafe) public let kSecMatchLimitOne: CFString = "m_LimitOne"
nonisolated(unsafe) public let kSecMatchLimitAll: CFString = "m_LimitAll"

// MARK: Which keychain

/// A boolean macOS code passes; an iOS keychain is always the data-protection one.
nonisolated(unsafe) public let kSecUseDataProtectionKeychain: CFString = "nleg"
