// SecAccessControl.h: an item's protection with the authentication its reading would need.
// Nothing authenticates here: an item with an access control is stored, found, read and scanned
// like any other, and its access control is kept as an attribute. Apple's rules for making one
// are kept: the same flags are refused, with the same messages.

import CoreFoundationDarwin
import Foundation

/// The authentication an access control asks for, and how its parts combine.
public struct SecAccessControlCreateFlags: OptionSet, Hashable, Sendable {
    public let rawValue: CFOptionFlags

    public init(rawValue: CFOptionFlags) { self.rawValue = rawValue }

    /// Biometry or the passcode; combines only with `.applicationPassword` and `.privateKeyUsage`.
    public static let userPresence = SecAccessControlCreateFlags(rawValue: 1 << 0)
    public static let biometryAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
    /// The former name of `.biometryAny`.
    public static let touchIDAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
    public static let biometryCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
    /// The former name of `.biometryCurrentSet`.
    public static let touchIDCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
    public static let devicePasscode = SecAccessControlCreateFlags(rawValue: 1 << 4)
    public static let watch = SecAccessControlCreateFlags(rawValue: 1 << 5)
    /// The later name of `.watch`.
    public static let companion = SecAccessControlCreateFlags(rawValue: 1 << 5)
    /// Any one of the constraints given is enough.
    public static let or = SecAccessControlCreateFlags(rawValue: 1 << 14)
    /// Every constraint given is needed.
    public static let and = SecAccessControlCreateFlags(rawValue: 1 << 15)
    public static let privateKeyUsage = SecAccessControlCreateFlags(rawValue: 1 << 30)
    public static let applicationPassword = SecAccessControlCreateFlags(rawValue: 1 << 31)
}

/// An access control: a `kSecAttrAccessible…` protection and the flags it was made with. Equal
/// to another made from the same protection and flags, as Apple compares them.
public final class SecAccessControl: NSObject, @unchecked Sendable {
    /// The `kSecAttrAccessible…` value an item with this access control gets.
    let protection: String
    let flags: SecAccessControlCreateFlags

    init(protection: String, flags: SecAccessControlCreateFlags) {
        self.protection = protection
        self.flags = flags
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? SecAccessControl else { return false }
        return protection == other.protection && flags == other.flags
    }

    public override var hash: Int { protection.hashValue ^ flags.rawValue.hashValue }

    public override var description: String { "<SecAccessControlRef: \(protection); flags \(flags.rawValue)>" }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// An access control for an item's `kSecAttrAccessControl`, or nil with `error` set (domain
/// `NSOSStatusErrorDomain`, code `errSecParam`) when the protection is not a
/// `kSecAttrAccessible…` value or the flags do not combine: `.or` with `.and`, both biometry
/// flags, or `.userPresence` with another constraint. The allocator is not used.
public func SecAccessControlCreateWithFlags(
    _ allocator: CFAllocator?, _ protection: CFTypeRef, _ flags: SecAccessControlCreateFlags,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecAccessControl? {
    switch accessControlProblem(protection, flags) {
    case nil:
        return SecAccessControl(protection: protection as? String ?? "", flags: flags)
    case let problem?:
        let failure = NSError(
            domain: NSOSStatusErrorDomain, code: Int(errSecParam),
            userInfo: [NSLocalizedDescriptionKey: problem])
        error?.pointee = Unmanaged.passRetained(failure)
        return nil
    }
}

/// Why these make no access control, in Apple's words; nil when they do.
private func accessControlProblem(_ protection: CFTypeRef, _ flags: SecAccessControlCreateFlags) -> String? {
    guard let protection = protection as? String, Attribute.accessibleValues.contains(protection) else {
        return "SecAccessControl: invalid protection: \(protection)"
    }
    if flags.contains(.or) && flags.contains(.and) { return "only one logical operation can be set" }
    if flags.contains(.biometryAny) && flags.contains(.biometryCurrentSet) {
        return "only one bio constraint can be set"
    }
    if flags.contains(.userPresence)
        && !flags.subtracting([.userPresence, .applicationPassword, .privateKeyUsage]).isEmpty
    {
        return "kSecAccessControlUserPresence can be combined only with kSecAccessControlApplicationPassword "
            + "and kSecAccessControlPrivateKeyUsage"
    }
    return nil
}
