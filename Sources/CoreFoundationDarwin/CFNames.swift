import Foundation

// CoreFoundation's names as shared-device code spells them. On iOS Foundation brings them;
// on Linux `import Foundation` does not, and `import CoreFoundation` has no bridging
// (`"x" as CFString` does not compile). Declared as the Foundation classes they bridge to on
// iOS, the same code compiles unchanged: `"x" as CFString` is `"x" as NSString`, and
// `query as CFDictionary` is `query as NSDictionary`. A file that also imports CoreFoundation
// sees each name twice: that import is the one line to remove on Linux (Docs/your-app.md).
// Being Foundation classes, they are `Hashable` and `Equatable` by value, as on iOS.

public typealias CFString = NSString
public typealias CFDictionary = NSDictionary
public typealias CFMutableDictionary = NSMutableDictionary
public typealias CFArray = NSArray
public typealias CFData = NSData
public typealias CFDate = NSDate
public typealias CFNumber = NSNumber
public typealias CFBoolean = NSNumber
/// Bridged to `NSError` on iOS: `error!.takeRetainedValue() as Error` compiles and keeps the
/// domain and code.
public typealias CFError = NSError
public typealias CFTypeRef = AnyObject
public typealias CFIndex = Int
public typealias CFOptionFlags = UInt
/// The status the keychain and other C APIs of Apple's return.
public typealias OSStatus = Int32

/// MacTypes' "no error", which code compares an `OSStatus` with as often as `errSecSuccess`.
public let noErr: OSStatus = 0

// Implicitly unwrapped, as iOS imports them: `kCFBooleanTrue!` and `kCFBooleanTrue` both compile.
public let kCFBooleanTrue: CFBoolean! = NSNumber(value: true)
public let kCFBooleanFalse: CFBoolean! = NSNumber(value: false)

/// A CoreFoundation allocator. Swift manages memory itself, so an allocator passed to a
/// `…Create…` function is accepted and not used; equal only to itself, as a CF object.
public final class CFAllocator: Hashable, Sendable {
    init() {}

    public static func == (lhs: CFAllocator, rhs: CFAllocator) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// The default allocator: NULL in C, so nil here too, and every `…Create…` function takes it.
public let kCFAllocatorDefault: CFAllocator! = nil
/// The system's allocator, an object where `kCFAllocatorDefault` is nil.
public let kCFAllocatorSystemDefault: CFAllocator! = CFAllocator()

// MARK: - CFError's functions, over the NSError it is

public typealias CFErrorDomain = CFString

nonisolated(unsafe) public let kCFErrorDomainOSStatus: CFErrorDomain! = NSString(string: NSOSStatusErrorDomain)
nonisolated(unsafe) public let kCFErrorDomainPOSIX: CFErrorDomain! = NSString(string: NSPOSIXErrorDomain)
nonisolated(unsafe) public let kCFErrorDomainCocoa: CFErrorDomain! = NSString(string: NSCocoaErrorDomain)

// swift-format-ignore: AlwaysUseLowerCamelCase
public func CFErrorCreate(
    _ allocator: CFAllocator!, _ domain: CFErrorDomain!, _ code: CFIndex, _ userInfo: CFDictionary!
) -> CFError! {
    NSError(domain: domain as String, code: code, userInfo: userInfo as? [String: Any])
}

// swift-format-ignore: AlwaysUseLowerCamelCase
public func CFErrorGetDomain(_ err: CFError!) -> CFErrorDomain! { NSString(string: err.domain) }

// swift-format-ignore: AlwaysUseLowerCamelCase
public func CFErrorGetCode(_ err: CFError!) -> CFIndex { err.code }

// swift-format-ignore: AlwaysUseLowerCamelCase
public func CFErrorCopyUserInfo(_ err: CFError!) -> CFDictionary! { NSDictionary(dictionary: err.userInfo) }

// swift-format-ignore: AlwaysUseLowerCamelCase
public func CFErrorCopyDescription(_ err: CFError!) -> CFString! { NSString(string: err.localizedDescription) }

// swift-format-ignore: AlwaysUseLowerCamelCase
public func CFErrorCopyFailureReason(_ err: CFError!) -> CFString! {
    err.localizedFailureReason.map { NSString(string: $0) }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
public func CFErrorCopyRecoverySuggestion(_ err: CFError!) -> CFString! {
    err.localizedRecoverySuggestion.map { NSString(string: $0) }
}

// MARK: Bundle keys

// The Info.plist keys CoreFoundation names, as code reads `Bundle.main.infoDictionary` with them.
nonisolated(unsafe) public let kCFBundleIdentifierKey: CFString! = "CFBundleIdentifier"
nonisolated(unsafe) public let kCFBundleNameKey: CFString! = "CFBundleName"
nonisolated(unsafe) public let kCFBundleVersionKey: CFString! = "CFBundleVersion"
nonisolated(unsafe) public let kCFBundleExecutableKey: CFString! = "CFBundleExecutable"
nonisolated(unsafe) public let kCFBundleInfoDictionaryVersionKey: CFString! = "CFBundleInfoDictionaryVersion"
nonisolated(unsafe) public let kCFBundleLocalizationsKey: CFString! = "CFBundleLocalizations"
nonisolated(unsafe) public let kCFBundleDevelopmentRegionKey: CFString! = "CFBundleDevelopmentRegion"
