import Foundation

// CoreFoundation's names as shared-device code spells them. On iOS Foundation brings them;
// on Linux `import Foundation` does not, and `import CoreFoundation` has no bridging
// (`"x" as CFString` does not compile). Declared as the Foundation classes they bridge to on
// iOS, the same code compiles unchanged: `"x" as CFString` is `"x" as NSString`, and
// `query as CFDictionary` is `query as NSDictionary`. A file that also imports CoreFoundation
// sees each name twice: that import is the one line to remove on Linux (Docs/your-app.md).

public typealias CFString = NSString
public typealias CFDictionary = NSDictionary
public typealias CFMutableDictionary = NSMutableDictionary
public typealias CFArray = NSArray
public typealias CFData = NSData
public typealias CFNumber = NSNumber
public typealias CFBoolean = NSNumber
public typealias CFTypeRef = AnyObject
public typealias CFIndex = Int
public typealias CFOptionFlags = UInt
/// The status the keychain and other C APIs of Apple's return.
public typealias OSStatus = Int32

// Implicitly unwrapped, as iOS imports them: `kCFBooleanTrue!` and `kCFBooleanTrue` both compile.
public let kCFBooleanTrue: CFBoolean! = NSNumber(value: true)
public let kCFBooleanFalse: CFBoolean! = NSNumber(value: false)
