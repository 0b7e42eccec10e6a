// The functions keep CoreFoundation's names.
// swift-format-ignore-file: AlwaysUseLowerCamelCase

import DarwinNotify
import Dispatch
import Foundation
import Synchronization

/// A notification center: the Darwin center, which carries names between processes
/// (`CFNotificationCenterGetDarwinNotifyCenter`), or the process's local center
/// (`CFNotificationCenterGetLocalCenter`). The Darwin center is built on notify(3): each
/// (observer, name) pair is a dispatch registration on the main queue. The local center calls
/// its observers on the posting thread, before the post returns, as CoreFoundation's does. Equal
/// only to itself, as a CF object.
public final class CFNotificationCenter: Hashable, Sendable {
    /// The notify client the Darwin center registers and posts with; nil outside a device, where
    /// it hears and sends nothing. Nil for the local center.
    private let client: (@Sendable () -> NotifyClient?)?
    private let observations = Mutex<[ObserverKey: Observation]>([:])
    private let localObservers = Mutex<[LocalObserver]>([])

    init(client: (@Sendable () -> NotifyClient?)?) {
        self.client = client
    }

    /// The Darwin center of this process, over its notify client.
    static let darwin = CFNotificationCenter { NotifyClient.shared }
    /// The process's local center.
    static let local = CFNotificationCenter(client: nil)

    /// Registers `callback` for `name` (nil: every name, on the local center only) and `object`
    /// (nil: any; the Darwin center ignores it), replacing the observer's earlier one for them.
    func addObserver(
        _ observer: UnsafeRawPointer?, name: String?, object: UnsafeRawPointer?,
        callback: @escaping CFNotificationCallback
    ) {
        guard let client else {
            let added = LocalObserver(
                observer: UInt(bitPattern: observer), name: name, object: UInt(bitPattern: object), callback: callback)
            return localObservers.withLock { observers in
                observers.removeAll { $0.matches(added.observer, name: name, object: object) }
                observers.append(added)
            }
        }
        guard let client = client(), let name else { return }
        let key = ObserverKey(observer: UInt(bitPattern: observer), name: name)
        let call = ObserverCall(callback: callback, name: CFNotificationName(name as CFString))
        let delivered = { [self] (_: Int32) in call.run(self, observer: key.observer) }
        guard let token = try? client.registerDispatch(name, queue: .main, handler: delivered) else { return }
        let replaced = observations.withLock { $0.updateValue(Observation(client: client, token: token), forKey: key) }
        replaced?.cancel()
    }

    /// Removes the observer's registrations: for `name` (nil: every name) and `object` (nil: any).
    func removeObserver(_ observer: UnsafeRawPointer?, name: String?, object: UnsafeRawPointer? = nil) {
        let observer = UInt(bitPattern: observer)
        localObservers.withLock { $0.removeAll { $0.matches(observer, name: name, object: object) } }
        let removed = observations.withLock { observations in
            let keys = observations.keys.filter { $0.observer == observer && (name == nil || $0.name == name) }
            return keys.compactMap { observations.removeValue(forKey: $0) }
        }
        for observation in removed { observation.cancel() }
    }

    /// Posts `name`: to every process from the Darwin center (the object and user info are not
    /// carried), or to this process's local observers of that name and object, in the order
    /// they were added.
    func post(_ name: String, object: UnsafeRawPointer?, userInfo: CFDictionary?) {
        if let client {
            try? client()?.post(name)
            return
        }
        let heard = localObservers.withLock { $0.filter { $0.hears(name, object: object) } }
        let notificationName = CFNotificationName(name as CFString)
        for observer in heard {
            observer.callback(
                self, UnsafeMutableRawPointer(bitPattern: observer.observer), notificationName, object, userInfo)
        }
    }

    public static func == (lhs: CFNotificationCenter, rhs: CFNotificationCenter) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// An observer of the local center: a name and an object it listens for (nil: any).
/// Unchecked: the callback is the app's, called on whichever thread posts, as CoreFoundation does.
private struct LocalObserver: @unchecked Sendable {
    let observer: UInt
    let name: String?
    let object: UInt
    let callback: CFNotificationCallback

    func hears(_ posted: String, object posting: UnsafeRawPointer?) -> Bool {
        (name == nil || name == posted) && (object == 0 || object == UInt(bitPattern: posting))
    }

    /// Whether this is the observer's registration for `name` and `object` (nil: any).
    func matches(_ observer: UInt, name: String?, object: UnsafeRawPointer?) -> Bool {
        self.observer == observer && (name == nil || self.name == name)
            && (object == nil || self.object == UInt(bitPattern: object))
    }
}

/// One observer's registration for one name.
private struct ObserverKey: Hashable {
    let observer: UInt
    let name: String
}

/// The registration of one observer for one name, with the client that made it (the process's
/// client changes if another device link is installed).
private struct Observation: Sendable {
    let client: NotifyClient
    let token: Int32

    func cancel() { try? client.cancel(token) }
}

/// An observer's callback and what it is called with. Unchecked: the callback and the name are
/// only used on the main queue, where the notify engine runs the registration's handler.
private struct ObserverCall: @unchecked Sendable {
    let callback: CFNotificationCallback
    let name: CFNotificationName

    func run(_ center: CFNotificationCenter, observer: UInt) {
        callback(center, UnsafeMutableRawPointer(bitPattern: observer), name, nil, nil)
    }
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

// MARK: - The centers' functions

/// The process's Darwin notify center, the same object at every call; implicitly unwrapped, as
/// iOS imports it.
public func CFNotificationCenterGetDarwinNotifyCenter() -> CFNotificationCenter! {
    CFNotificationCenter.darwin
}

/// The process's local notification center, the same object at every call.
public func CFNotificationCenterGetLocalCenter() -> CFNotificationCenter! {
    CFNotificationCenter.local
}

/// Calls `callBack` after each post of `name` with the center, the observer and the name: on the
/// main queue from the Darwin center (object and user info nil; a nil name is ignored, as are
/// `object` and the suspension behaviour), on the posting thread from the local center (with
/// the post's object and user info; a nil name or object hears every one).
public func CFNotificationCenterAddObserver(
    _ center: CFNotificationCenter!, _ observer: UnsafeRawPointer!, _ callBack: CFNotificationCallback!,
    _ name: CFString!, _ object: UnsafeRawPointer!, _ suspensionBehavior: CFNotificationSuspensionBehavior
) {
    guard let center, let callBack else { return }
    center.addObserver(observer, name: name.map { $0 as String }, object: object, callback: callBack)
}

/// Stops the observer's callbacks for `name`, or for every name when it is nil.
public func CFNotificationCenterRemoveObserver(
    _ center: CFNotificationCenter!, _ observer: UnsafeRawPointer!, _ name: CFNotificationName!,
    _ object: UnsafeRawPointer!
) {
    center?.removeObserver(observer, name: name.map { $0.rawValue as String }, object: object)
}

/// Stops every callback of the observer.
public func CFNotificationCenterRemoveEveryObserver(_ center: CFNotificationCenter!, _ observer: UnsafeRawPointer!) {
    center?.removeObserver(observer, name: nil)
}

/// Posts `name`: from the Darwin center to every process (notify_post; the object, the user
/// info and `deliverImmediately` are ignored), from the local center to this process's
/// observers before it returns. A nil name is ignored.
public func CFNotificationCenterPostNotification(
    _ center: CFNotificationCenter!, _ name: CFNotificationName!, _ object: UnsafeRawPointer!,
    _ userInfo: CFDictionary!, _ deliverImmediately: Bool
) {
    guard let name else { return }
    center?.post(name.rawValue as String, object: object, userInfo: userInfo)
}

/// As `CFNotificationCenterPostNotification`; the options are ignored.
public func CFNotificationCenterPostNotificationWithOptions(
    _ center: CFNotificationCenter!, _ name: CFNotificationName!, _ object: UnsafeRawPointer!,
    _ userInfo: CFDictionary!, _ options: CFOptionFlags
) {
    guard let name else { return }
    center?.post(name.rawValue as String, object: object, userInfo: userInfo)
}
