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
        var folderCopies = folders.map { strdup($0) }
        var fileCopies = files.map { strdup($0) }
        defer { (folderCopies + fileCopies).forEach { free($0) } }
        folderCopies.withUnsafeMutableBufferPointer { folderPointers in
            fileCopies.withUnsafeMutableBufferPointer { filePointers in
                folderPointers.withMemoryRebound(to: UnsafePointer<CChar>?.self) { allowed in
                    filePointers.withMemoryRebound(to: UnsafePointer<CChar>?.self) { allowedFiles in
                        sdlab_write_guard_install(
                            allowed.baseAddress, Int32(allowed.count), allowedFiles.baseAddress,
                            Int32(allowedFiles.count)
                        ) { path, call in
                            guard let path, let call else { return }
                            WriteFence.refused(String(cString: path), String(cString: call))
                        }
                    }
                }
            }
        }
    }

    private static func refused(_ path: String, _ call: String) {
        trace.withLock { $0?.record(.writeRefused, [.path: .string(path), .call: .string(call)]) }
    }
}
