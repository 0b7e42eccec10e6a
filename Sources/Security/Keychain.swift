// `import Security` as on iOS: the keychain's SecItem functions, over the app's keychain folder
// on its simulated device, so that an app's keychain code compiles and behaves unchanged.
//
// The rules below follow Apple's documentation of the SecItem functions and of the item
// attribute and search keys (Keychain Services, developer.apple.com/documentation/security);
// where it says nothing, they follow what Apple's published keychain server (securityd) does.
//
// Where the items are
// - In the device's keychain folder (`DeviceLink.current.keychainFolder`); in a process outside
//   a device, in the folder the environment variable `SDLAB_KEYCHAIN` names. With neither, every
//   call returns errSecNotAvailable.
// - All in one file, `items.json` (`ItemsFile`), read at every call and replaced atomically at
//   every change: the keychain outlives the process. A file that cannot be written (a full disk)
//   gives errSecIO, and nothing changed; one that cannot be decoded gives errSecDecode, and is
//   left as it is.
//
// Dictionaries
// - Every dictionary but an update's changes has `kSecClass`, one of the five classes. A
//   missing or unknown class, an unknown key, or a value of the wrong type (`kSecValueData`
//   not data, a `kSecReturn…` not a boolean, `kSecAttrAccessible` not one of its values) gives
//   errSecParam.
// - `kSecValueRef`, `kSecValuePersistentRef`, and `kSecReturnRef` or `kSecReturnPersistentRef`
//   set to true give errSecUnimplemented: there are no SecKey or SecCertificate objects here,
//   nor persistent references. `kSecUseDataProtectionKeychain` is accepted: iOS has no other.
//
// Items
// - No two items share a primary key: for generic passwords class, service, account, access
//   group and synchronizable; for internet passwords class, server, account, protocol, port,
//   path, access group and synchronizable; for keys class, application tag, key class, access
//   group and synchronizable; for certificates (and identities) their data, access group and
//   synchronizable. An add that would break this gives errSecDuplicateItem and changes nothing.
// - An added item gets what iOS fills in: empty primary-key attributes (`""`, 0, empty data),
//   the app's access group (the app's name; `default` outside a device),
//   `kSecAttrAccessibleWhenUnlocked`, not synchronizable, and its creation and modification
//   dates (dates given to an add or an update are ignored).
//
// Searches (a CopyMatching's query, an Update's, a Delete's)
// - An item is found when it is of the class and has each attribute given, equal; an attribute
//   not given matches anything. Without `kSecAttrSynchronizable` only items that are not
//   synchronizable are found; `kSecAttrSynchronizableAny` finds both. `kSecValueData` is not
//   compared.
// - SecItemCopyMatching returns at most `kSecMatchLimit` items, one when not given (a number
//   is accepted too). With no `kSecReturn…` key the result is nil; with `kSecReturnData` the
//   item's data (CFData); with `kSecReturnAttributes` a dictionary of its attributes (with
//   `kSecClass` and the dates), plus `kSecValueData` when both are given; with a limit other
//   than one, an array of these. Nothing found gives errSecItemNotFound. The result pointer
//   may be nil, and is set to nil when a call fails.
// - SecItemAdd with `kSecReturn…` keys returns the new item as a search for it with a limit
//   of one would; `kSecMatchLimit` there is ignored.
// - SecItemUpdate changes every item found. `kSecMatchLimit` in its query is accepted and
//   ignored (Apple's server does not refuse it); `kSecReturn…` there gives errSecParam, as in
//   Apple's server. The changes may not have `kSecClass`, `kSecReturn…` or `kSecMatchLimit`
//   (errSecParam). An update that would make an item share its primary key with another gives
//   errSecDuplicateItem and changes nothing; nothing found gives errSecItemNotFound. It sets
//   the modification date.
// - SecItemDelete deletes every item found. `kSecMatchLimitAll` is accepted; a limit of one,
//   or any number, gives errSecParam, as Apple's server refuses it; `kSecReturn…` is ignored.
//   Nothing found gives errSecItemNotFound.
//
// Not simulated: entitlements (any access group may be used, so errSecMissingEntitlement is
// not returned), a locked device (`kSecAttrAccessible` is stored and searched, and
// errSecInteractionNotAllowed is not returned), and iCloud's copies of synchronizable items.

@_exported import CoreFoundationDarwin
import DeviceLink
import Foundation

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Adds an item; `result` receives what its `kSecReturn…` keys ask for.
@discardableResult
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    onKeychain(.current, result) { $0.add(attributes, result) }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Finds items; `result` receives what the query's `kSecReturn…` keys ask for.
@discardableResult
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    onKeychain(.current, result) { $0.copyMatching(query, result) }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Changes every item the query finds.
@discardableResult
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
    onKeychain(.current) { $0.update(query, attributesToUpdate) }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Deletes every item the query finds.
@discardableResult
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
    onKeychain(.current) { $0.delete(query) }
}

/// Makes `call` on `keychain`; errSecNotAvailable, with a nil result, when there is none.
func onKeychain(
    _ keychain: KeychainStore?, _ result: UnsafeMutablePointer<CFTypeRef?>? = nil,
    _ call: (KeychainStore) -> OSStatus
) -> OSStatus {
    guard let keychain else {
        result?.pointee = nil
        return errSecNotAvailable
    }
    return call(keychain)
}

/// The environment variable naming the keychain folder of a process outside a device.
let keychainVariable = "SDLAB_KEYCHAIN"

extension KeychainStore {
    /// The process's keychain, looked up at every call: the host installs the device's link
    /// before the app runs, and a test may name a folder in `SDLAB_KEYCHAIN` at any time.
    static var current: KeychainStore? {
        let link = DeviceLink.current
        let variable = getenv(keychainVariable).map { String(cString: $0) }
        guard let folder = keychainFolder(device: link?.keychainFolder, environment: variable) else { return nil }
        return KeychainStore(folder: folder, defaultAccessGroup: link?.appName ?? "default")
    }
}

/// Where a process's keychain is: its device's folder, else the one its environment names;
/// nil when it has neither (an empty name is none).
func keychainFolder(device: String?, environment: String?) -> String? {
    [device, environment].compactMap { $0 }.first { !$0.isEmpty }
}
