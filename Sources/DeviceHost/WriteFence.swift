import CWriteGuard
import DeviceContract
import Glibc
import Synchronization

/// Keeps a team's app from writing outside its container (`CWriteGuard`): each refused write
/// fails with EACCES, as on a phone, and is traced with its path, so the run names it.
enum WriteFence {
    private static let trace = Mutex<TraceLog?>(nil)

    /// Allows writes beneath `folders` only, from now on.
    static func install(allowing folders: [String], trace log: TraceLog?) {
        trace.withLock { $0 = log }
        var copies = folders.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        copies.withUnsafeMutableBufferPointer { pointers in
            pointers.withMemoryRebound(to: UnsafePointer<CChar>?.self) { allowed in
                sdlab_write_guard_install(allowed.baseAddress, Int32(allowed.count)) { path, call in
                    guard let path, let call else { return }
                    WriteFence.refused(String(cString: path), String(cString: call))
                }
            }
        }
    }

    private static func refused(_ path: String, _ call: String) {
        trace.withLock { $0?.record(.writeRefused, [.path: .string(path), .call: .string(call)]) }
    }
}
