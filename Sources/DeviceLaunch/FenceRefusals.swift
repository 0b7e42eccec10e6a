import DeviceContract
import DeviceProcesses
import Foundation
import Synchronization

/// What the fence refused to one launched app and what it started, traced as the app's
/// `write-refused` events in a file of the run folder, whether the watch refused it or the
/// kernel's Landlock did (`KernelRefusals`). The file is made at the first refusal.
final class FenceRefusals: Sendable {
    let app: String
    let launched: pid_t
    let trace: String
    private let log = Mutex<TraceLog?>(nil)

    init(app: String, launched: pid_t, trace: String) {
        self.app = app
        self.launched = launched
        self.trace = trace
    }

    /// One refusal: of a change at `place` outside the container (the kernel's `access` there,
    /// when it said), or of a call as such, for `why`.
    func record(place: String?, access: String? = nil, why: String?, call: String, pid: pid_t, command: String) {
        var fields: [(TraceField, TraceValue)] = [(.call, .string(call)), (.pid, .int(Int64(pid)))]
        if let place { fields.append((.path, .string(place))) }
        if let access { fields.append((.access, .string(access))) }
        if let why { fields.append((.reason, .string(why))) }
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
            let tried = place.map { "to write outside its container: \($0) (\(call), refused)" }
            FileHandle.standardError.write(
                Data(
                    "sdlab: \(app) tried \(tried ?? "\(call) (refused): \(why ?? "?")"), and that cannot be traced: \(untraced)\n"
                        .utf8))
        }
    }

    /// Cuts the file back to its lines. A refusal the kernel tells of later opens it again.
    func close() {
        log.withLock {
            $0?.close()
            $0 = nil
        }
    }
}
