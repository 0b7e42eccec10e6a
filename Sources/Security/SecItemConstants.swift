// The keys and values of SecItem dictionaries (SecItem.h), with the strings Apple's Security
// framework gives them, so that a dictionary printed, stored or compared by string reads as on
// iOS. NSString is not Sendable on Linux (its mutable subclass is one), but each of these is an
// immutable string that is never replaced: safe to share between threads, as on iOS. The
// constants Apple has deprecated keep working here, without a warning.

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

// MARK: Attributes of every class

/// One of the `kSecAttrAccessible…` values; `kSecAttrAccessibleWhenUnlocked` when not given.
nonisolated(unsafe) public let kSecAttrAccessible: CFString = "pdmn"
/// A `SecAccessControl`; the item's `kSecAttrAccessible` is then its protection.
nonisolated(unsafe) public let kSecAttrAccessControl: CFString = "accc"
nonisolated(unsafe) public let kSecAttrAccessGroup: CFString = "agrp"
/// A boolean; in a search also `kSecAttrSynchronizableAny`. Not given means false.
nonisolated(unsafe) public let kSecAttrSynchronizable: CFString = "sync"
/// Set by the keychain when the item is added (a date).
nonisolated(unsafe) public let kSecAttrCreationDate: CFString = "cdat"
/// Set by the keychain when the item is added or updated (a date).
nonisolated(unsafe) public let kSecAttrModificationDate: CFString = "mdat"
nonisolated(unsafe) public let kSecAttrLabel: CFString = "labl"
/// A reference to the item, which this keychain does not have.
nonisolated(unsafe) public let kSecAttrPersistentReference: CFString = "persistref"

// MARK: Attributes of passwords

nonisolated(unsafe) public let kSecAttrDescription: CFString = "desc"
nonisolated(unsafe) public let kSecAttrComment: CFString = "icmt"
/// A number (a four-character code).
nonisolated(unsafe) public let kSecAttrCreator: CFString = "crtr"
/// A number (a four-character code); the same key as `kSecAttrKeyType`.
nonisolated(unsafe) public let kSecAttrType: CFString = "type"
/// A boolean.
nonisolated(unsafe) public let kSecAttrIsInvisible: CFString = "invi"
/// A boolean: the item stands for a password the user chose not to keep.
nonisolated(unsafe) public let kSecAttrIsNegative: CFString = "nega"
nonisolated(unsafe) public let kSecAttrAccount: CFString = "acct"
nonisolated(unsafe) public let kSecAttrService: CFString = "svce"
/// Data of the app's own (CFData).
nonisolated(unsafe) public let kSecAttrGeneric: CFString = "gena"
nonisolated(unsafe) public let kSecAttrSecurityDomain: CFString = "sdmn"
nonisolated(unsafe) public let kSecAttrServer: CFString = "srvr"
/// One of the `kSecAttrProtocol…` values.
nonisolated(unsafe) public let kSecAttrProtocol: CFString = "ptcl"
/// One of the `kSecAttrAuthenticationType…` values.
nonisolated(unsafe) public let kSecAttrAuthenticationType: CFString = "atyp"
/// A number.
nonisolated(unsafe) public let kSecAttrPort: CFString = "port"
nonisolated(unsafe) public let kSecAttrPath: CFString = "path"

// MARK: Attributes of certificates

/// A number.
nonisolated(unsafe) public let kSecAttrCertificateType: CFString = "ctyp"
/// A number.
nonisolated(unsafe) public let kSecAttrCertificateEncoding: CFString = "cenc"
/// Data, as the other certificate attributes below.
nonisolated(unsafe) public let kSecAttrSubject: CFString = "subj"
nonisolated(unsafe) public let kSecAttrIssuer: CFString = "issr"
nonisolated(unsafe) public let kSecAttrSerialNumber: CFString = "slnr"
nonisolated(unsafe) public let kSecAttrSubjectKeyID: CFString = "skid"
nonisolated(unsafe) public let kSecAttrPublicKeyHash: CFString = "pkhh"

// MARK: Attributes of keys

/// One of the `kSecAttrKeyClass…` values.
nonisolated(unsafe) public let kSecAttrKeyClass: CFString = "kcls"
/// Data.
nonisolated(unsafe) public let kSecAttrApplicationLabel: CFString = "klbl"
/// Data (a string is taken as its UTF-8 bytes).
nonisolated(unsafe) public let kSecAttrApplicationTag: CFString = "atag"
/// One of the `kSecAttrKeyType…` values (numbers written as strings); read back as a number.
nonisolated(unsafe) public let kSecAttrKeyType: CFString = "type"
/// A number, as the effective key size.
nonisolated(unsafe) public let kSecAttrKeySizeInBits: CFString = "bsiz"
nonisolated(unsafe) public let kSecAttrEffectiveKeySize: CFString = "esiz"
/// A boolean, as every `kSecAttrIs…` and `kSecAttrCan…` attribute of a key.
nonisolated(unsafe) public let kSecAttrIsPermanent: CFString = "perm"
nonisolated(unsafe) public let kSecAttrIsSensitive: CFString = "sens"
nonisolated(unsafe) public let kSecAttrIsExtractable: CFString = "extr"
nonisolated(unsafe) public let kSecAttrCanEncrypt: CFString = "encr"
nonisolated(unsafe) public let kSecAttrCanDecrypt: CFString = "decr"
nonisolated(unsafe) public let kSecAttrCanDerive: CFString = "drve"
nonisolated(unsafe) public let kSecAttrCanSign: CFString = "sign"
nonisolated(unsafe) public let kSecAttrCanVerify: CFString = "vrfy"
nonisolated(unsafe) public let kSecAttrCanWrap: CFString = "wrap"
nonisolated(unsafe) public let kSecAttrCanUnwrap: CFString = "unwp"
/// A string naming the view an item syncs in.
nonisolated(unsafe) public let kSecAttrSyncViewHint: CFString = "vwht"
/// A string: `kSecAttrTokenIDSecureEnclave` for a key kept in the Secure Enclave.
nonisolated(unsafe) public let kSecAttrTokenID: CFString = "tkid"

// MARK: kSecAttrAccessible values

nonisolated(unsafe) public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = "akpu"
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = "aku"
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlocked: CFString = "ak"
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlock: CFString = "ck"
/// Deprecated by Apple since iOS 12, still accepted there and here.
nonisolated(unsafe) public let kSecAttrAccessibleAlways: CFString = "dk"
/// Deprecated by Apple since iOS 12, still accepted there and here.
nonisolated(unsafe) public let kSecAttrAccessibleAlwaysThisDeviceOnly: CFString = "dku"

// MARK: kSecAttrSynchronizable values

/// In a search: synchronizable items and the others alike.
nonisolated(unsafe) public let kSecAttrSynchronizableAny: CFString = "syna"

// MARK: kSecAttrProtocol values

nonisolated(unsafe) public let kSecAttrProtocolFTP: CFString = "ftp "
nonisolated(unsafe) public let kSecAttrProtocolFTPAccount: CFString = "ftpa"
nonisolated(unsafe) public let kSecAttrProtocolHTTP: CFString = "http"
nonisolated(unsafe) public let kSecAttrProtocolIRC: CFString = "irc "
nonisolated(unsafe) public let kSecAttrProtocolNNTP: CFString = "nntp"
nonisolated(unsafe) public let kSecAttrProtocolPOP3: CFString = "pop3"
nonisolated(unsafe) public let kSecAttrProtocolSMTP: CFString = "smtp"
nonisolated(unsafe) public let kSecAttrProtocolSOCKS: CFString = "sox "
nonisolated(unsafe) public let kSecAttrProtocolIMAP: CFString = "imap"
nonisolated(unsafe) public let kSecAttrProtocolLDAP: CFString = "ldap"
nonisolated(unsafe) public let kSecAttrProtocolAppleTalk: CFString = "atlk"
nonisolated(unsafe) public let kSecAttrProtocolAFP: CFString = "afp "
nonisolated(unsafe) public let kSecAttrProtocolTelnet: CFString = "teln"
nonisolated(unsafe) public let kSecAttrProtocolSSH: CFString = "ssh "
nonisolated(unsafe) public let kSecAttrProtocolFTPS: CFString = "ftps"
nonisolated(unsafe) public let kSecAttrProtocolHTTPS: CFString = "htps"
nonisolated(unsafe) public let kSecAttrProtocolHTTPProxy: CFString = "htpx"
nonisolated(unsafe) public let kSecAttrProtocolHTTPSProxy: CFString = "htsx"
nonisolated(unsafe) public let kSecAttrProtocolFTPProxy: CFString = "ftpx"
nonisolated(unsafe) public let kSecAttrProtocolSMB: CFString = "smb "
nonisolated(unsafe) public let kSecAttrProtocolRTSP: CFString = "rtsp"
nonisolated(unsafe) public let kSecAttrProtocolRTSPProxy: CFString = "rtsx"
nonisolated(unsafe) public let kSecAttrProtocolDAAP: CFString = "daap"
nonisolated(unsafe) public let kSecAttrProtocolEPPC: CFString = "eppc"
nonisolated(unsafe) public let kSecAttrProtocolIPP: CFString = "ipp "
nonisolated(unsafe) public let kSecAttrProtocolNNTPS: CFString = "ntps"
nonisolated(unsafe) public let kSecAttrProtocolLDAPS: CFString = "ldps"
nonisolated(unsafe) public let kSecAttrProtocolTelnetS: CFString = "tels"
nonisolated(unsafe) public let kSecAttrProtocolIMAPS: CFString = "imps"
nonisolated(unsafe) public let kSecAttrProtocolIRCS: CFString = "ircs"
nonisolated(unsafe) public let kSecAttrProtocolPOP3S: CFString = "pops"

// MARK: kSecAttrAuthenticationType values

nonisolated(unsafe) public let kSecAttrAuthenticationTypeNTLM: CFString = "ntlm"
nonisolated(unsafe) public let kSecAttrAuthenticationTypeMSN: CFString = "msna"
nonisolated(unsafe) public let kSecAttrAuthenticationTypeDPA: CFString = "dpaa"
nonisolated(unsafe) public let kSecAttrAuthenticationTypeRPA: CFString = "rpaa"
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTTPBasic: CFString = "http"
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTTPDigest: CFString = "httd"
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTMLForm: CFString = "form"
nonisolated(unsafe) public let kSecAttrAuthenticationTypeDefault: CFString = "dflt"

// MARK: kSecAttrKeyClass values

nonisolated(unsafe) public let kSecAttrKeyClassPublic: CFString = "0"
nonisolated(unsafe) public let kSecAttrKeyClassPrivate: CFString = "1"
nonisolated(unsafe) public let kSecAttrKeyClassSymmetric: CFString = "2"

// MARK: kSecAttrKeyType values

nonisolated(unsafe) public let kSecAttrKeyTypeRSA: CFString = "42"
nonisolated(unsafe) public let kSecAttrKeyTypeECSECPrimeRandom: CFString = "73"
/// Deprecated by Apple for `kSecAttrKeyTypeECSECPrimeRandom`, which it equals.
nonisolated(unsafe) public let kSecAttrKeyTypeEC: CFString = "73"

// MARK: kSecAttrTokenID and kSecAttrAccessGroup values

nonisolated(unsafe) public let kSecAttrTokenIDSecureEnclave: CFString = "com.apple.setoken"
/// The access group of the items of tokens, such as smart cards.
nonisolated(unsafe) public let kSecAttrAccessGroupToken: CFString = "com.apple.token"

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

// MARK: How a search matches

nonisolated(unsafe) public let kSecMatchLimit: CFString = "m_Limit"
nonisolated(unsafe) public let kSecMatchLimitOne: CFString = "m_LimitOne"
nonisolated(unsafe) public let kSecMatchLimitAll: CFString = "m_LimitAll"
/// A boolean: string attributes match whatever their letters' case.
nonisolated(unsafe) public let kSecMatchCaseInsensitive: CFString = "m_CaseInsensitive"
// Certificate matching, which this keychain does not have: a search with one of these keys
// returns errSecUnimplemented.
nonisolated(unsafe) public let kSecMatchPolicy: CFString = "m_Policy"
nonisolated(unsafe) public let kSecMatchItemList: CFString = "m_ItemList"
nonisolated(unsafe) public let kSecMatchSearchList: CFString = "m_SearchList"
nonisolated(unsafe) public let kSecMatchIssuers: CFString = "m_Issuers"
nonisolated(unsafe) public let kSecMatchEmailAddressIfPresent: CFString = "m_EmailAddressIfPresent"
nonisolated(unsafe) public let kSecMatchSubjectContains: CFString = "m_SubjectContains"
nonisolated(unsafe) public let kSecMatchTrustedOnly: CFString = "m_TrustedOnly"
nonisolated(unsafe) public let kSecMatchValidOnDate: CFString = "m_ValidOnDate"

// MARK: How a call runs

/// A boolean macOS code passes; an iOS keychain is always the data-protection one.
nonisolated(unsafe) public let kSecUseDataProtectionKeychain: CFString = "nleg"
/// References to search among, which this keychain does not have (errSecUnimplemented).
nonisolated(unsafe) public let kSecUseItemList: CFString = "u_ItemList"
/// The reason shown in the authentication prompt (a string). Deprecated by Apple for an
/// LAContext's `localizedReason`; accepted and not shown: nothing prompts here.
nonisolated(unsafe) public let kSecUseOperationPrompt: CFString = "u_OpPrompt"
/// Deprecated by Apple for `kSecUseAuthenticationUI`; a boolean, accepted and not used.
nonisolated(unsafe) public let kSecUseNoAuthenticationUI: CFString = "u_NoAuthUI"
/// One of the `kSecUseAuthenticationUI…` values; accepted and not used, as no item here asks
/// for authentication.
nonisolated(unsafe) public let kSecUseAuthenticationUI: CFString = "u_AuthUI"
/// An LAContext that has authenticated the user; any object, accepted and not used.
nonisolated(unsafe) public let kSecUseAuthenticationContext: CFString = "u_AuthCtx"

// MARK: kSecUseAuthenticationUI values

/// Deprecated by Apple; the default.
nonisolated(unsafe) public let kSecUseAuthenticationUIAllow: CFString = "u_AuthUIA"
/// Deprecated by Apple for an LAContext whose `interactionNotAllowed` is set.
nonisolated(unsafe) public let kSecUseAuthenticationUIFail: CFString = "u_AuthUIF"
nonisolated(unsafe) public let kSecUseAuthenticationUISkip: CFString = "u_AuthUIS"
