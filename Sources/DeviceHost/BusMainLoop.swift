import CSystem
import CoreFoundation
import DBusKit
import Foundation
import Glibc

/// The app's main thread as the bus connection's owner: one poll() on the bus socket, the
/// connection's wake-up eventfd and the main dispatch queue's eventfd. A post then wakes the app
/// twice, as it wakes the C receiver (the signal; the reply): the Darwin delivery, the check's
/// task and its completion all run on this thread, in the order their messages arrived.
///
/// The main queue is drained after each routed message, before the next is routed, so a block
/// a message queued there runs before any later message is seen (coalescing depends on it).
///
/// CoreFoundation's run loop cannot serve the bus itself: on Linux a version-1 source's port is
/// acknowledged by reading eight bytes from it, which would eat the bus stream, and it is
/// watched edge-triggered, so unread input would not fire it again. This loop serves the main
/// queue without the run loop instead; once the app schedules a timer on the main run loop,
/// the connection gets an owner thread of its own and the main thread runs the run loop.
struct BusMainLoop {
    let connection: Connection

    /// Whether the environment asks for the run loop (`SDLAB_MAIN_LOOP=runloop`), to compare
    /// the two or to serve run-loop sources other than timers.
    static var runLoopRequested: Bool {
        getenv("SDLAB_MAIN_LOOP").map { String(cString: $0) == "runloop" } ?? false
    }

    func run() -> Never {
        let mainQueue = _dispatch_get_main_queue_handle_4CF()
        let flags = fcntl(mainQueue, F_GETFL)
        if flags & O_NONBLOCK == 0 { _ = fcntl(mainQueue, F_SETFL, flags | O_NONBLOCK) }
        let descriptors = connection.ownerDescriptors
        var fds = [
            pollfd(fd: descriptors.socket, events: Int16(POLLIN), revents: 0),
            pollfd(fd: descriptors.wake, events: Int16(POLLIN), revents: 0),
            pollfd(fd: mainQueue, events: Int16(POLLIN), revents: 0),
        ]
        // The poke is taken before the drain, so a block queued during the drain (or by
        // another thread after it) pokes again and wakes the poll. Taking it here rather than
        // after a poll saves a poll and a pass per message: a routed message has usually just
        // queued a block here itself.
        let drainMainQueue = {
            var counter: UInt64 = 0
            _ = read(mainQueue, &counter, 8)
            _dispatch_main_queue_callback_4CF(nil)
        }
        // Blocks queued before the loop started poked no descriptor.
        drainMainQueue()
        let mainRunLoop = CFRunLoopGetMain()!
        while true {
            if fds[2].revents != 0 { drainMainQueue() }
            let wait = connection.serve(
                socketReadiness: fds[0].revents, wakeReady: fds[1].revents != 0, afterEachMessage: drainMainQueue)
            if wait.isClosed { break }
            if Self.hasTimer(mainRunLoop) {
                connection.handOffToOwnThread()
                break
            }
            fds[0].events = wait.socketEvents
            for index in fds.indices { fds[index].revents = 0 }
            _ = poll(&fds, nfds_t(fds.count), wait.timeoutMilliseconds)
        }
        // The bus is gone (the host exits once it hears so) or served elsewhere: the main queue
        // and the app's timers go on under the run loop.
        Self.runRunLoop()
    }

    /// Whether the app scheduled a timer on the main run loop, which only the run loop fires.
    /// The check costs a lookup under the run loop's lock per wake-up.
    private static func hasTimer(_ mainRunLoop: CFRunLoop) -> Bool {
        CFRunLoopGetNextTimerFireDate(mainRunLoop, kCFRunLoopDefaultMode) != 0
    }

    /// CoreFoundation's loop, kept running by a timer that never fires when the app adds no
    /// source. `CFRunLoopRun` serves source after source; `RunLoop.run(mode:before:)` returns
    /// after each, and a fleet paid for every return.
    static func runRunLoop() -> Never {
        RunLoop.main.add(Timer(fire: .distantFuture, interval: 0, repeats: false) { _ in }, forMode: .default)
        while true { CFRunLoopRun() }
    }
}
