// `import Security` as on iOS: the keychain's SecItem functions over the app's keychain folder
// on its simulated device, so that an app's keychain code compiles and behaves unchanged. The
// rules (Apple's Keychain Services documentation, and where it is silent what Apple's keychain
// server does) are in Docs/behaviour.md §10, "The keychain".

// Security brings CoreFoundation and Foundation's names with it, as Foundation and Security
// bring each other's on iOS: a target that imports this module implicitly (Docs/your-app.md)
// gives each file that says only `import Foundation` the keychain and the CF names.
@_exported import CoreFoundationDarwin
import FacadeCore
@_exported import Foundation

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
