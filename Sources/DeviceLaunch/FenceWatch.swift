import CFenceWatch
import DeviceContract
import DeviceProcesses
import Foundation

/// The runner's side of the fence's watch (`sdlab-fence --watch`): each call an app, or a
/// process it started, makes to create or change a file or an extended attribute waits here
/// while its path is resolved; one that lands outside the app's container fails with EACCES and
/// is traced as the app's `write-refused` with its `path`. Every call the watch does not let an
/// app make is refused here too and traced with the `reason`. So the run names each, whatever
/// route it took (Docs/hardening.md).
enum FenceWatch {
    /// `SDLAB_FENCE_WATCH=off` runs apps without the watch (their writes outside are then refused by
    /// Landlock alone, without a name); `SDLAB_FENCE_WATCH=writes` has it hold every write even
    /// where the kernel could tell the runner of Landlock's refusals. Each tries that path.
    static let switchVariable = "SDLAB_FENCE_WATCH"

    enum Asked: String {
        case off, writes
    }

    static func asked(in environment: [String: String] = ProcessInfo.processInfo.environment) -> Asked? {
        environment[switchVariable].flatMap(Asked.init)
    }

    static func isOff(in environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        asked(in: environment) == .off
    }

    /// The fence's word on `channel` about the app `name`: the watch's listener; nil when there is
    /// none and `SDLAB_FENCE_WATCH=off` asked for that; else why the launch cannot go on (the fence
    /// did not start the app, or cannot watch it, so that writes the kernel refused would go unnamed).
    static func receive(on channel: Int32, of name: String, timeout: Duration) -> Result<Int32?, LaunchError> {
        var why = [CChar](repeating: 0, count: 512)
        let milliseconds = Int32(clamping: timeout.components.seconds * 1000)
        let listener = sdlab_watch_receive(channel, milliseconds, &why, Int32(why.count))
        let said = String(decoding: why.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch listener {
        case 0...: return .success(listener)
        case -2: return .failure(LaunchError("launch \(name): the fence did not start it: \(said)"))
        case _ where isOff(): return .success(nil)  // said once for the run (`AppFence.KernelFence.shortfall`)
        default: return .failure(LaunchError("launch \(name): the fence cannot watch its writes: \(said)"))
        }
    }

    /// Answers `listener`'s calls on a thread of its own until every process it watches has
    /// ended: writes beneath `container` or to `files` go on, others are refused and told to
    /// `refusals`.
    static func serve(_ listener: Int32, container: String, files: [String], refusals: FenceRefusals) {
        let thread = Thread {
            let copies = ([container] + files).map { strdup($0) }
            defer { copies.forEach { free($0) } }
            let folders: [UnsafePointer<CChar>?] = [UnsafePointer(copies[0])]
            let fileCopies: [UnsafePointer<CChar>?] = copies.dropFirst().map { UnsafePointer($0) }
            withExtendedLifetime(refusals) {
                let context = Unmanaged.passUnretained(refusals).toOpaque()
                _ = sdlab_watch_serve(listener, folders, 1, fileCopies, Int32(fileCopies.count), refused, context)
            }
            close(listener)
            refusals.close()
        }
        thread.name = "fence watch \(refusals.app)"
        thread.stackSize = 1 << 20
        thread.start()
    }

    private static let refused: sdlab_watch_refused = { context, place, why, call, pid, command in
        guard let context, let call, let command else { return }
        Unmanaged<FenceRefusals>.fromOpaque(context).takeUnretainedValue().record(
            place: place.map { String(cString: $0) }, why: why.map { String(cString: $0) },
            call: String(cString: call), pid: pid, command: String(cString: command))
    }
}
