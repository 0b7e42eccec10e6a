/// notify(3) on a simulated device: Apple's `<notify.h>` with its spellings, over the device's
/// bus and hub, so that an iOS app's `import notify` compiles and behaves as on a phone. The
/// rules (notify(3), Libnotify's client source and tests) are in Docs/behaviour.md §10, "The
/// Darwin center and notify(3)".

// swift-format-ignore-file: AlwaysUseLowerCamelCase, TypeNamesShouldBeCapitalized

@_exported import CoreFoundationDarwin
import DarwinNotify
import Dispatch

// MARK: Statuses
// `<notify.h>` defines them as macros, which Swift imports as `Int32`: iOS code compares a
// status with `NOTIFY_STATUS_OK` (a mixed-type `==`) or converts it (`UInt32(NOTIFY_STATUS_OK)`).

public var NOTIFY_STATUS_OK: Int32 { 0 }
public var NOTIFY_STATUS_INVALID_NAME: Int32 { 1 }
public var NOTIFY_STATUS_INVALID_TOKEN: Int32 { 2 }
public var NOTIFY_STATUS_INVALID_PORT: Int32 { 3 }
public var NOTIFY_STATUS_INVALID_FILE: Int32 { 4 }
public var NOTIFY_STATUS_INVALID_SIGNAL: Int32 { 5 }
public var NOTIFY_STATUS_INVALID_REQUEST: Int32 { 6 }
public var NOTIFY_STATUS_NOT_AUTHORIZED: Int32 { 7 }
public var NOTIFY_STATUS_OPT_DISABLE: Int32 { 8 }
public var NOTIFY_STATUS_SERVER_NOT_FOUND: Int32 { 9 }
public var NOTIFY_STATUS_NULL_INPUT: Int32 { 10 }
public var NOTIFY_STATUS_FAILED: Int32 { 1_000_000 }

/// `notify_register_file_descriptor`'s flag: reuse the descriptor passed in.
public var NOTIFY_REUSE: Int32 { 1 }

/// A dispatch registration's handler, given the token. Not `@Sendable`, as the block type it
/// stands for, so that callers compile in Swift 5 and 6 alike; it runs on the queue given.
public typealias notify_handler_t = (Int32) -> Void

// MARK: Calls

@discardableResult
public func notify_post(_ name: UnsafePointer<CChar>!) -> UInt32 {
    NotifyCalls.process.post(name)
}

@discardableResult
public func notify_register_check(_ name: UnsafePointer<CChar>!, _ out_token: UnsafeMutablePointer<Int32>!) -> UInt32 {
    NotifyCalls.process.registerCheck(name, out_token)
}

@discardableResult
public func notify_register_dispatch(
    _ name: UnsafePointer<CChar>!, _ out_token: UnsafeMutablePointer<Int32>!, _ queue: DispatchQueue!,
    _ handler: @escaping notify_handler_t
) -> UInt32 {
    NotifyCalls.process.registerDispatch(name, out_token, queue, handler)
}

@discardableResult
public func notify_register_signal(
    _ name: UnsafePointer<CChar>!, _ sig: Int32, _ out_token: UnsafeMutablePointer<Int32>!
) -> UInt32 {
    NotifyCalls.process.registerSignal(name, sig, out_token)
}

@discardableResult
public func notify_register_file_descriptor(
    _ name: UnsafePointer<CChar>!, _ notify_fd: UnsafeMutablePointer<Int32>!, _ flags: Int32,
    _ out_token: UnsafeMutablePointer<Int32>!
) -> UInt32 {
    NotifyCalls.process.registerFileDescriptor(name, notify_fd, flags, out_token)
}

@discardableResult
public func notify_check(_ token: Int32, _ check: UnsafeMutablePointer<Int32>!) -> UInt32 {
    NotifyCalls.process.check(token, check)
}

@discardableResult
public func notify_set_state(_ token: Int32, _ state64: UInt64) -> UInt32 {
    NotifyCalls.process.setState(token, state64)
}

@discardableResult
public func notify_get_state(_ token: Int32, _ state64: UnsafeMutablePointer<UInt64>!) -> UInt32 {
    NotifyCalls.process.getState(token, state64)
}

@discardableResult
public func notify_suspend(_ token: Int32) -> UInt32 {
    NotifyCalls.process.suspend(token)
}

@discardableResult
public func notify_resume(_ token: Int32) -> UInt32 {
    NotifyCalls.process.resume(token)
}

@discardableResult
public func notify_cancel(_ token: Int32) -> UInt32 {
    NotifyCalls.process.cancel(token)
}

public func notify_is_valid_token(_ val: Int32) -> Bool {
    NotifyCalls.process.isValidToken(val)
}
