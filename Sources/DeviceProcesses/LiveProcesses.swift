import FoundationEssentials
import Glibc

/// The live processes (not zombies) that belong to a run folder: their command line names it,
/// or their environment puts an app's container in it (a cleanup hook names it there only).
public enum LiveProcesses {
    public static func mentioning(_ folder: String) -> [(pid: Int32, commandLine: String)] {
        let pids = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap(Int32.init)
        return pids.compactMap { pid in
            guard let bytes = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"), !bytes.isEmpty,
                ChildProcess(pid: pid).isRunning
            else { return nil }
            let line = String(decoding: bytes.map { $0 == 0 ? 32 : $0 }, as: UTF8.self)
            let environment = FileManager.default.contents(atPath: "/proc/\(pid)/environ").map {
                String(decoding: $0, as: UTF8.self)
            }
            return line.contains(folder) || environment?.contains("SDLAB_CONTAINER=\(folder)") == true
                ? (pid, line) : nil
        }
    }
}
