/// notify(3) on a simulated device: Apple's `<notify.h>` with its spellings, over the device's
/// bus and hub, so that an iOS app's `import notify` compiles and behaves as on a phone.
///
/// The rules, and where they come from (the notify(3) manual page, Libnotify's client source
/// `notify_client.c` and its tests, Apple's Darwin Notification API reference):
///
/// - **Posts carry a name and nothing else.** Any process may post any name, and every process
///   registered for it hears the post, the poster included (notify(3)).
/// - **A registration is a token.** Tokens are process-wide, start at 1 and only grow (Libnotify
///   increments its counter before use). Each token gets its own delivery of each post, however
///   many tokens share the name (Libnotify keeps one table entry per token).
/// - **`notify_check`** says 1 at the first call for a token, then 1 only if a post came since
///   the previous call (notify(3); Libnotify's check tokens start out "changed").
/// - **Posts may be coalesced.** Posts close together may arrive as one delivery (notify(3)); a
///   dispatch token never has more than one delivery waiting to run, and a post that comes while
///   its handler runs queues the next one, so the last post is never lost.
/// - **Suspension nests.** As many `notify_resume` as `notify_suspend` calls end it; the posts
///   in between make one delivery at that last resume (Darwin Notification API,
///   `notify_suspend` / `notify_resume`; notifyd's suspend count and pending flag).
/// - **A cancelled token hears nothing more**, not even a delivery already queued, and a
///   handler may cancel its own token (Libnotify looks the token up again before it runs a
///   handler). The file descriptor of `notify_register_file_descriptor` is closed, both ends,
///   with the last token using it (Libnotify counts its descriptors).
/// - **`self.` names are the process's own**: posted and delivered in the process, never on the
///   device, their state kept in the process (Libnotify's `SELF_PREFIX`).
/// - **State is a 64-bit value per name**, 0 until set, shared by every token and process (the
///   hub keeps it); setting it posts nothing (notify(3)).
/// - **Signals** are raised in this process once per delivery (Libnotify: `kill(getpid(), sig)`).
/// - **File descriptors** receive the token, 4 bytes in network byte order, once per delivery;
///   `NOTIFY_REUSE` passes in a descriptor this API returned, whose pipe the new token shares
///   (any other is `NOTIFY_STATUS_INVALID_FILE`, as in Libnotify).
/// - **Statuses**: a NULL name is `NOTIFY_STATUS_NULL_INPUT`, as is a NULL out-pointer (a NULL
///   descriptor pointer is `INVALID_FILE` and a NULL queue `FAILED`, as in Libnotify); an empty
///   name, one over 511 bytes or one that is not UTF-8 (the bus carries names as D-Bus
///   strings) is `INVALID_NAME`; an unknown or cancelled token `INVALID_TOKEN`; a signal outside
///   1…64 `INVALID_SIGNAL`. The hub keeps states for names of at most 255 bytes: reading or
///   setting the state of a longer name is `INVALID_NAME`, though one may post and register it.
/// - **Outside a device** (no device link installed) posting, registering and the state calls
///   are `NOTIFY_STATUS_SERVER_NOT_FOUND`, as when notifyd is missing; the token calls are
///   `INVALID_TOKEN`, since no token exists.
/// - **The calls are synchronous.** A registration returns once the bus has installed its
///   match rule, so no later post is missed; `notify_get_state` and `notify_set_state` wait for
///   the hub. Each waits at most the device's hub timeout, then answers `NOTIFY_STATUS_FAILED`.
///   Call them from the main thread or the app's queues, as on iOS; never from the bus
///   connection's thread, where they fail at once.

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
