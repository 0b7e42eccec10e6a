import CFenceWatch
import DeviceContract
import DeviceProcesses
import Foundation
import Synchronization

/// The runner's side of the fence's watch (`sdlab-fence --watch`): each call an app, or a
/// process it started, makes to create or change a file (or to keep bytes past the process)
/// waits here while its path is resolved; one that lands outside the app's container fails with
/// EACCES and is traced as the app's `write-refused`, so the run names it whatever route it took
/// (Docs/hardening.md).
enum FenceWatch {
    /// `SDLAB_FENCE_WATCH=off` runs apps without the watch (their writes outside are then refused by
    /// Landlock alone, without a name), to try that path.
    static let switchVariable = "SDLAB_FENCE_WATCH"

    static func isOff(in environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        environment[switchVariable] == "off"
    }

    /// The fence's word on `channel`: the watch's listener, or why there is none.
    static func receive(on channel: Int32, timeout: Duration) -> Result<Int32, LaunchError> {
        var why = [CChar](repeating: 0, count: 512)
        let milliseconds = Int32(clamping: timeout.components.seconds * 1000)
        let listener = sdlab_watch_receive(channel, milliseconds, &why, Int32(why.count))
        guard listener < 0 else { return .success(listener) }
        return .failure(
            LaunchError(String(decoding: why.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))
    }

    /// Answers `listener`'s calls on a thread of its own until every process it watches has
    /// ended: writes beneath `container` or to `files` go on, others are refused and traced in
    /// `trace` (opened at the first refusal) as `app`'s, with the command that made the call when
    /// it was not the process `launched`.
    static func serve(
        _ listener: Int32, app: String, launched: pid_t, container: String, files: [String], trace: String
    ) {
        let refusals = Refusals(app: app, launched: launched, trace: trace)
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
        thread.name = "fence watch \(app)"
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// What the watch refused, traced as the app's; the file is made at the first refusal.
    private final class Refusals: Sendable {
        let app: String
        let launched: pid_t
        let trace: String
        private let log = Mutex<TraceLog?>(nil)

        init(app: String, launched: pid_t, trace: String) {
            self.app = app
            self.launched = launched
            self.trace = trace
        }

        func record(path: String, call: String, pid: pid_t, command: String) {
            var fields: [(TraceField, TraceValue)] = [
                (.path, .string(path)), (.call, .string(call)), (.pid, .int(Int64(pid))),
            ]
            if pid != launched { fields.append((.command, .string(command))) }
            let untraced = log.withLock { log -> String? in
                if log == nil {
                    do { log = try TraceLog(path: trace, process: app) } catch { return "\(error)" }
                }
                log?.record(.writeRefused, fields: fields)
                return nil
            }
            // The app's write failed all the same; the run must not pass over it in silence.
            if let untraced {
                FileHandle.standardError.write(
                    Data(
                        "sdlab: \(app) tried to write outside its container: \(path) (\(call), refused), and that cannot be traced: \(untraced)\n"
                            .utf8))
            }
        }

        func close() { log.withLock { $0?.close() } }
    }

    private static let refused: sdlab_watch_refused = { context, path, call, pid, command in
        guard let context, let path, let call, let command else { return }
        Unmanaged<Refusals>.fromOpaque(context).takeUnretainedValue().record(
            path: String(cString: path), call: String(cString: call), pid: pid, command: String(cString: command))
    }
}
