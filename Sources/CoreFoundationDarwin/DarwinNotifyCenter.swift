// The functions keep CoreFoundation's names.
// swift-format-ignore-file: AlwaysUseLowerCamelCase

import DarwinNotify
import Dispatch
import Foundation
import Synchronization

/// A notification center; the only one here is the Darwin center, which carries names between
/// processes (`CFNotificationCenterGetDarwinNotifyCenter`). It is built on notify(3): each
/// (observer, name) pair is a dispatch registration on the main queue. Equal only to itself, as a
/// CF object.
public final class CFNotificationCenter: Hashable, Sendable {
    /// The notify client the center registers and posts with; nil outside a device, where the
    /// center hears and sends nothing.
    private let client: @Sendable () -> NotifyClient?
    private let observations = Mutex<[ObserverKey: Observation]>([:])

    init(client: @escaping @Sendable () -> NotifyClient?) {
        self.client = client
    }

    /// The center of this process, over its notify client.
    static let darwin = CFNotificationCenter { NotifyClient.shared }

    /// Registers `callback` for `name` on the main queue, replacing the observer's earlier one
    /// for that name.
    func addObserver(_ observer: UnsafeRawPointer?, name: String, callback: @escaping CFNotificationCallback) {
        guard let client = client() else { return }
        let key = ObserverKey(observer: UInt(bitPattern: observer), name: name)
        let call = ObserverCall(callback: callback, name: CFNotificationName(name as CFString))
        let delivered = { [self] (_: Int32) in call.run(self, observer: key.observer) }
        guard let token = try? client.registerDispatch(name, queue: .main, handler: delivered) else { return }
        let replaced = observations.withLock { $0.updateValue(Observation(client: client, token: token), forKey: key) }
        replaced?.cancel()
    }

    /// Removes the observer's registrations: for `name`, or for every name when nil.
    func removeObserver(_ observer: UnsafeRawPointer?, name: String?) {
        let observer = UInt(bitPattern: observer)
        let removed = observations.withLock { observations in
            let keys = observations.keys.filter { $0.observer == observer && (name == nil || $0.name == name) }
            return keys.compactMap { observations.removeValue(forKey: $0) }
        }
        for observation in removed { observation.cancel() }
    }

    func post(_ name: String) {
        try? client()?.post(name)
    }

    public static func == (lhs: CFNotificationCenter, rhs: CFNotificationCenter) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
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

// MARK: - The Darwin center's functions

/// The process's Darwin notify center, the same object at every call.
public func CFNotificationCenterGetDarwinNotifyCenter() -> CFNotificationCenter {
    CFNotificationCenter.darwin
}

/// Calls `callBack` on the main queue after each post of `name`, with the center, the observer and
/// the name (the object and user info are always nil). A nil name is ignored, as are `object`
/// and the suspension behaviour.
public func CFNotificationCenterAddObserver(
    _ center: CFNotificationCenter!, _ observer: UnsafeRawPointer!, _ callBack: CFNotificationCallback!,
    _ name: CFString!, _ object: UnsafeRawPointer!, _ suspensionBehavior: CFNotificationSuspensionBehavior
) {
    guard let center, let callBack, let name else { return }
    center.addObserver(observer, name: name as String, callback: callBack)
}

/// Stops the observer's callbacks for `name`, or for every name when it is nil.
public func CFNotificationCenterRemoveObserver(
    _ center: CFNotificationCenter!, _ observer: UnsafeRawPointer!, _ name: CFNotificationName!,
    _ object: UnsafeRawPointer!
) {
    center?.removeObserver(observer, name: name.map { $0.rawValue as String })
}

/// Stops every callback of the observer.
public func CFNotificationCenterRemoveEveryObserver(_ center: CFNotificationCenter!, _ observer: UnsafeRawPointer!) {
    center?.removeObserver(observer, name: nil)
}

/// Posts `name` to every process (notify_post); the object, the user info and
/// `deliverImmediately` are ignored, and so is a nil name.
public func CFNotificationCenterPostNotification(
    _ center: CFNotificationCenter!, _ name: CFNotificationName!, _ object: UnsafeRawPointer!,
    _ userInfo: CFDictionary!, _ deliverImmediately: Bool
) {
    guard let name else { return }
    center?.post(name.rawValue as String)
}

/// As `CFNotificationCenterPostNotification`; the options are ignored.
public func CFNotificationCenterPostNotificationWithOptions(
    _ center: CFNotificationCenter!, _ name: CFNotificationName!, _ object: UnsafeRawPointer!,
    _ userInfo: CFDictionary!, _ options: CFOptionFlags
) {
    guard let name else { return }
    center?.post(name.rawValue as String)
}
