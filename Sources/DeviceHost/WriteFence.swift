import CWriteGuard
import DeviceContract
import Glibc
import Synchronization

/// Names a team app's refused writes (`CWriteGuard`): each write outside its container that goes
/// through the C library fails with EACCES, as on a phone, and is traced with its path, so the
/// run names it. The kernel refuses the same writes whatever route they take (`sdlab-fence`),
/// without a name.
enum WriteFence {
    private static let trace = Mutex<TraceLog?>(nil)

    /// Allows writes beneath `folders` and to `files` only, from now on.
    static func install(allowing folders: [String], files: [String], trace log: TraceLog?) {
        trace.withLock { $0 = log }
        // C strings that live through the call; the guard keeps copies of its own.
        let folderCopies: [UnsafePointer<CChar>?] = folders.map { UnsafePointer(strdup($0)) }
        let fileCopies: [UnsafePointer<CChar>?] = files.map { UnsafePointer(strdup($0)) }
        defer { (folderCopies + fileCopies).forEach { free(UnsafeMutablePointer(mutating: $0)) } }
        sdlab_write_guard_install(folderCopies, Int32(folderCopies.count), fileCopies, Int32(fileCopies.count)) {
            path, call in
            guard let path, let call else { return }
            WriteFence.refused(String(cString: path), String(cString: call))
        }
    }

    private static func refused(_ path: String, _ call: String) {
        trace.withLock { $0?.record(.writeRefused, [.path: .string(path), .call: .string(call)]) }
    }
}
