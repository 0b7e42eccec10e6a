import Foundation

/// A notification center; the only one here is the Darwin center, which carries names between
/// processes (`CFNotificationCenterGetDarwinNotifyCenter`).
public final class CFNotificationCenter: @unchecked Sendable {
    init() {}
}

/// A notification's name, as the Darwin center's callback and post take it.
public struct CFNotificationName: Hashable, RawRepresentable, @unchecked Sendable {
    public var rawValue: CFString

    public init(_ rawValue: CFString) { self.rawValue = rawValue }
    public init(rawValue: CFString) { self.rawValue = rawValue }
}

/// `CFNotificationCallback`. On iOS a `@convention(c)` function; Linux cannot put class types
/// in one, so it is a plain function type here. A closure literal that captures nothing (the
/// usual form, recovering `self` from `observer` with `Unmanaged`) fits both.
public typealias CFNotificationCallback = (
    CFNotificationCenter?, UnsafeMutableRawPointer?, CFNotificationName?, UnsafeRawPointer?, CFDictionary?
) -> Void

/// Ignored by the Darwin center, which always delivers at once.
public enum CFNotificationSuspensionBehavior: Int, Sendable {
    case drop = 1, coalesce, hold, deliverImmediately
}

/// `CFNotificationCenterPostNotificationWithOptions`' options; the Darwin center ignores them.
public let kCFNotificationDeliverImmediately: CFOptionFlags = 1
public let kCFNotificationPostToAllSessions: CFOptionFlags = 2
