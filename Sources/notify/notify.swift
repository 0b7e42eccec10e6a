/// notify(3) on a simulated device: Apple's `<notify.h>` with its spellings, over the device's
/// bus and hub, so that an iOS app's `import notify` compiles and behaves as on a phone. The
/// rules (notify(3), Libnotify's client source and tests) are in Docs/behaviour.md §10, "The
/// Darwin center and notify(3)".

// swift-format-ignore-file: AlwaysUseLowerCamelCase, TypeNamesShouldBeCapitalized

@_exported import CoreFoundationDarwin
import DarwinNotify
// `<notify.h>` includes `<dispatch/dispatch.h>`: a file that imports notify alone sees
// `DispatchQueue` for `notify_register_dispatch`.
@_exported import Dispatch

// MARK: Statuses
// `<notify.h>` defines them as macros, which Swift imports as `Int32`: iOS code compares a
// status with `NOTIFY_STATUS_OK` (a mixed-type `==`) or converts it (`UInt32(NOTIFY_STATUS_OK)`).

/// The call succeeded.
public var NOTIFY_STATUS_OK: Int32 { 0 }
/// The name is empty, longer than 511 bytes, or not UTF-8.
public var NOTIFY_STATUS_INVALID_NAME: Int32 { 1 }
/// No such token: never returned, or cancelled (and every token call outside a device).
public var NOTIFY_STATUS_INVALID_TOKEN: Int32 { 2 }
public var NOTIFY_STATUS_INVALID_PORT: Int32 { 3 }
public var NOTIFY_STATUS_INVALID_FILE: Int32 { 4 }
/// A signal outside 1…64.
public var NOTIFY_STATUS_INVALID_SIGNAL: Int32 { 5 }
public var NOTIFY_STATUS_INVALID_REQUEST: Int32 { 6 }
public var NOTIFY_STATUS_NOT_AUTHORIZED: Int32 { 7 }
public var NOTIFY_STATUS_OPT_DISABLE: Int32 { 8 }
/// There is no device: the process runs outside one.
public var NOTIFY_STATUS_SERVER_NOT_FOUND: Int32 { 9 }
/// A name or an out-pointer is NULL.
public var NOTIFY_STATUS_NULL_INPUT: Int32 { 10 }
/// The call failed, as when the device does not answer within the hub timeout.
public var NOTIFY_STATUS_FAILED: Int32 { 1_000_000 }

/// A token no registration has: code initialises its token with it, and compares with it to
/// tell whether it registered.
public var NOTIFY_TOKEN_INVALID: Int32 { -1 }

/// `notify_register_file_descriptor`'s flag: reuse the descriptor passed in.
public var NOTIFY_REUSE: Int32 { 1 }

/// A dispatch registration's handler, given the token. Not `@Sendable`, as the block type it
/// stands for, so that callers compile in Swift 5 and 6 alike; it runs on the queue given.
public typealias notify_handler_t = (Int32) -> Void

// MARK: Calls

/// Posts `name` to every process registered for it, this one included.
@discardableResult
public func notify_post(_ name: UnsafePointer<CChar>!) -> UInt32 {
    NotifyCalls.process.post(name)
}

/// Registers for `name` without a delivery: ask with `notify_check` whether a post came.
@discardableResult
public func notify_register_check(_ name: UnsafePointer<CChar>!, _ out_token: UnsafeMutablePointer<Int32>!) -> UInt32 {
    NotifyCalls.process.registerCheck(name, out_token)
}

/// Registers for `name`: `handler` runs on `queue`, with the token, after each post (posts
/// close together may arrive as one, never losing the last).
@discardableResult
public func notify_register_dispatch(
    _ name: UnsafePointer<CChar>!, _ out_token: UnsafeMutablePointer<Int32>!, _ queue: DispatchQueue!,
    _ handler: @escaping notify_handler_t
) -> UInt32 {
    NotifyCalls.process.registerDispatch(name, out_token, queue, handler)
}

/// Registers for `name`: each post raises `sig` in this process.
@discardableResult
public func notify_register_signal(
    _ name: UnsafePointer<CChar>!, _ sig: Int32, _ out_token: UnsafeMutablePointer<Int32>!
) -> UInt32 {
    NotifyCalls.process.registerSignal(name, sig, out_token)
}

/// Registers for `name`: each post writes the token, 4 bytes in network byte order, to the
/// descriptor returned in `notify_fd` (with `NOTIFY_REUSE`, the one passed in).
@discardableResult
public func notify_register_file_descriptor(
    _ name: UnsafePointer<CChar>!, _ notify_fd: UnsafeMutablePointer<Int32>!, _ flags: Int32,
    _ out_token: UnsafeMutablePointer<Int32>!
) -> UInt32 {
    NotifyCalls.process.registerFileDescriptor(name, notify_fd, flags, out_token)
}

/// Sets `check` to 1 at the first call for a token, then to 1 only if a post came since.
@discardableResult
public func notify_check(_ token: Int32, _ check: UnsafeMutablePointer<Int32>!) -> UInt32 {
    NotifyCalls.process.check(token, check)
}

/// Sets the name's 64-bit state, shared by every process; it posts nothing.
@discardableResult
public func notify_set_state(_ token: Int32, _ state64: UInt64) -> UInt32 {
    NotifyCalls.process.setState(token, state64)
}

/// Reads the name's 64-bit state: 0 until set.
@discardableResult
public func notify_get_state(_ token: Int32, _ state64: UnsafeMutablePointer<UInt64>!) -> UInt32 {
    NotifyCalls.process.getState(token, state64)
}

/// Holds the token's deliveries; suspensions nest, and the posts meanwhile make one delivery
/// at the last resume.
@discardableResult
public func notify_suspend(_ token: Int32) -> UInt32 {
    NotifyCalls.process.suspend(token)
}

/// Ends one suspension of the token.
@discardableResult
public func notify_resume(_ token: Int32) -> UInt32 {
    NotifyCalls.process.resume(token)
}

/// Ends the registration: the token hears nothing more, not even a delivery already queued.
@discardableResult
public func notify_cancel(_ token: Int32) -> UInt32 {
    NotifyCalls.process.cancel(token)
}

/// Whether the token is registered and not cancelled.
public func notify_is_valid_token(_ val: Int32) -> Bool {
    NotifyCalls.process.isValidToken(val)
}
