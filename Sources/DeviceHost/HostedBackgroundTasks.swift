import DBusKit
import DeviceContract
import FacadeCore
import Foundation
import SharedDevice
import Synchronization

/// The app's background tasks, as UIKit's `beginBackgroundTask(withName:expirationHandler:)`
/// and `endBackgroundTask(_:)` open and end them (Docs/behaviour.md §7, §10). Each change is
/// traced and told to the runner, which decides when the app is suspended: with a task open
/// it runs in the background until the task time is up (its expiration handlers run first), or
/// until its last task ends after the grace. Outside a device the tasks are only counted.
/// It also counts the app's background time as the device gives it (`timeRemaining`), for
/// UIKit's `backgroundTimeRemaining`; the runner, not this count, suspends the app.
public final class HostedBackgroundTasks: Sendable {
    /// The app's tasks; the host tells the device about them once it runs.
    public static let shared = HostedBackgroundTasks()

    private struct State {
        /// Open tasks by identifier, with their names and expiration handlers (run on the main queue).
        var open: [Int: (name: String, handler: AppValue<(() -> Void)?>)] = [:]
        var next = 1
        var trace: TraceLog?
        var connection: Connection?
        /// The device's grace and task time for the app; nil: it runs on in the background
        /// (background mode, or outside a device).
        var backgroundTime: BackgroundTime?
        /// When the app entered the background, while a suspension is pending.
        var backgroundSince: ContinuousClock.Instant?
    }

    private let state = Mutex(State())

    /// The host joins them to its device: from then on every change is traced and signalled.
    func attach(trace: TraceLog?, connection: Connection) {
        state.withLock {
            $0.trace = trace
            $0.connection = connection
        }
    }

    /// The background time the device gives the app (the runner passes it on the command line);
    /// nil for an app with background mode.
    func give(_ backgroundTime: BackgroundTime?) { state.withLock { $0.backgroundTime = backgroundTime } }

    /// The app is sent to the background, or woken there from a suspension, at `now`: its
    /// background time starts.
    func enteredBackground(at now: ContinuousClock.Instant = .now) { state.withLock { $0.backgroundSince = now } }

    /// No suspension is pending any more: the app is in the foreground.
    func suspensionCalledOff() { state.withLock { $0.backgroundSince = nil } }

    /// The time the app has left before the device suspends it, in seconds: unbounded
    /// (`greatestFiniteMagnitude`) unless a suspension is pending; then the grace, or the task
    /// time while a task is open, less the time since it entered the background, and 0 once
    /// that is up.
    public func timeRemaining(at now: ContinuousClock.Instant = .now) -> TimeInterval {
        state.withLock { state in
            guard let time = state.backgroundTime, let since = state.backgroundSince else {
                return .greatestFiniteMagnitude
            }
            let left = time.allowance(withTasks: !state.open.isEmpty) - (now - since)
            return max(0, Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18)
        }
    }

    /// Opens a task; returns its identifier (1, 2, …).
    public func begin(name: String?, expirationHandler handler: (() -> Void)?) -> Int {
        let (id, count, trace, connection) = state.withLock { state in
            defer { state.next += 1 }
            state.open[state.next] = (name ?? "", AppValue(handler))
            return (state.next, state.open.count, state.trace, state.connection)
        }
        trace?.record(.backgroundTaskBegan, [.name: .string(name ?? ""), .count: .int(Int64(count))])
        Self.tell(count, on: connection)
        return id
    }

    /// Ends a task; one already ended, or never begun, is ignored.
    public func end(_ id: Int) {
        let ended = state.withLock { state -> (Int, TraceLog?, Connection?)? in
            guard state.open.removeValue(forKey: id) != nil else { return nil }
            return (state.open.count, state.trace, state.connection)
        }
        guard let (count, trace, connection) = ended else { return }
        trace?.record(.backgroundTaskEnded, [.count: .int(Int64(count))])
        Self.tell(count, on: connection)
    }

    /// How many tasks are open.
    public var count: Int { state.withLock { $0.open.count } }

    /// The expiration handlers of the open tasks, oldest first: the app's background time is
    /// up. Run them on the main queue, as iOS does; each may end its task.
    func expirationHandlers() -> [AppValue<(() -> Void)?>] {
        let (handlers, trace) = state.withLock { state in
            (state.open.sorted { $0.key < $1.key }.map(\.value.handler), state.trace)
        }
        if !handlers.isEmpty { trace?.record(.backgroundTasksExpired, [.count: .int(Int64(handlers.count))]) }
        return handlers
    }

    /// `BackgroundTasks(open)` from the app object, as the runner listens for it.
    private static func tell(_ count: Int, on connection: Connection?) {
        _ = try? connection?.emitSignal(
            path: AppBus.path, interface: AppBus.interface, member: AppBus.backgroundTasksSignal,
            [.uint32(UInt32(clamping: count))])
    }
}
