import DBusKit
import DeviceContract
import Synchronization

/// The built-in app's background task (`--background-task`, Docs/behaviour.md §7): begun in
/// its `applicationDidEnterBackground`, held as an app that syncs in the background holds one,
/// and ended by its expiration handler when the runner says the time is up, or when the app
/// returns to the foreground. Every change is traced and told to the runner with the signal
/// `BackgroundTasks(open)`, sent before the reply to the call that caused it.
final class HeldBackgroundTask: Sendable {
    private let host: AppHost
    private let open = Mutex(false)

    init(_ host: AppHost) { self.host = host }

    func begin() {
        guard set(open: true) else { return }
        host.traceEvent(.backgroundTaskBegan, [.name: "sync", .count: 1])
        tell(1)
    }

    /// Its expiration handler: the task ends.
    func expire() {
        guard open.withLock({ $0 }) else { return }
        host.traceEvent(.backgroundTasksExpired, [.count: 1])
        end()
    }

    func end() {
        guard set(open: false) else { return }
        host.traceEvent(.backgroundTaskEnded, [.count: 0])
        tell(0)
    }

    /// Opens or ends the task; false when it already was so.
    private func set(open value: Bool) -> Bool {
        open.withLock { open in
            defer { open = value }
            return open != value
        }
    }

    private func tell(_ count: UInt32) {
        _ = try? host.connection.emitSignal(
            path: AppBus.path, interface: AppBus.interface, member: AppBus.backgroundTasksSignal, [.uint32(count)])
    }
}
