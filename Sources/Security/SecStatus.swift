import CoreFoundationDarwin
import Foundation

// The result codes of the SecItem functions, with Apple's values.

public let errSecSuccess: OSStatus = 0
public let errSecUnimplemented: OSStatus = -4
/// The keychain's file could not be read or written (a full disk); nothing changed.
public let errSecIO: OSStatus = -36
public let errSecParam: OSStatus = -50
public let errSecAllocate: OSStatus = -108
/// No keychain: the process runs outside a device and `SDLAB_KEYCHAIN` names no folder.
public let errSecNotAvailable: OSStatus = -25291
public let errSecDuplicateItem: OSStatus = -25299
public let errSecItemNotFound: OSStatus = -25300
public let errSecInteractionNotAllowed: OSStatus = -25308
/// The keychain's file is not one this keychain wrote; it is left as it is.
public let errSecDecode: OSStatus = -26275
public let errSecMissingEntitlement: OSStatus = -34018

// swift-format-ignore: AlwaysUseLowerCamelCase
/// A short English sentence saying what `status` means; `reserved` must be nil, as on iOS.
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? {
    NSString(string: errorMessage(status))
}

/// The sentence for `status`, in the words Apple's documentation uses.
func errorMessage(_ status: OSStatus) -> String {
    switch status {
    case errSecSuccess: "No error."
    case errSecUnimplemented: "Function or operation not implemented."
    case errSecIO: "I/O error."
    case errSecParam: "One or more parameters passed to a function were not valid."
    case errSecAllocate: "Failed to allocate memory."
    case errSecNotAvailable: "No keychain is available."
    case errSecDuplicateItem: "The specified item already exists in the keychain."
    case errSecItemNotFound: "The specified item could not be found in the keychain."
    case errSecInteractionNotAllowed: "User interaction is not allowed."
    case errSecDecode: "Unable to decode the provided data."
    case errSecMissingEntitlement: "A required entitlement isn't present."
    default: "The operation couldn't be completed. (OSStatus error \(status).)"
    }
}

/// A SecItem call that stops with `status`.
struct KeychainFailure: Error, Equatable {
    let status: OSStatus

    static let param = KeychainFailure(status: errSecParam)
    static let io = KeychainFailure(status: errSecIO)
    static let notFound = KeychainFailure(status: errSecItemNotFound)
    static let duplicate = KeychainFailure(status: errSecDuplicateItem)
}

/// The status of `call`: success unless it failed.
func status(of call: () throws(KeychainFailure) -> Void) -> OSStatus {
    do throws(KeychainFailure) {
        try call()
        return errSecSuccess
    } catch {
        return error.status
    }
}
