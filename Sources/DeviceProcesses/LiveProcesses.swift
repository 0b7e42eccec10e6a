import FoundationEssentials
import Glibc

/// The live processes (not zombies) that belong to a run folder: their command line names it,
/// or their environment puts an app's container in it (a cleanup hook names it there only).
public enum LiveProcesses {
    /// Those of `ofRunFolder`, with their command lines (to say what is left).
    public static func mentioning(_ folder: String) -> [(pid: Int32, commandLine: String)] {
        ofRunFolder(folder).compactMap { pid in commandLine(of: pid).map { (pid, $0) } }
    }

    /// The live processes a cleanup hook of a container in `folder` started, and their
    /// descendants: their environment names the container (no command line is looked at, so a
    /// shell that merely names the folder is not one).
    public static func startedByHooks(in folder: String) -> [Int32] {
        allPIDs().filter { commandLine(of: $0) != nil && isStartedByHook($0, in: folder) }
    }

    /// The live processes of the run folder `folder`, by its exact path: an argument of their
    /// command line is the folder, a path in it, or ends in `=` and a path in it (a bus address),
    /// or a cleanup hook of one of its containers started them. Never a process of a folder
    /// whose path merely begins or ends the same (`FOLDER2`, `/other/FOLDER`).
    public static func ofRunFolder(_ folder: String) -> [Int32] {
        allPIDs().filter { pid in
            guard let arguments = arguments(of: pid) else { return false }
            return arguments.contains { names(folder, $0) } || isStartedByHook(pid, in: folder)
        }
    }

    private static func names(_ folder: String, _ argument: String) -> Bool {
        argument == folder || argument.hasPrefix(folder + "/") || argument.contains("=" + folder + "/")
    }

    /// The arguments of a live process (nil: gone, a zombie, or a kernel thread).
    private static func arguments(of pid: Int32) -> [String]? {
        guard let bytes = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"), !bytes.isEmpty,
            ChildProcess(pid: pid).isRunning
        else { return nil }
        return bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Every process ID in `/proc`, live or not.
    static func allPIDs() -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap(Int32.init)
    }

    /// The command line of a live process (nil: gone, a zombie, or a kernel thread).
    private static func commandLine(of pid: Int32) -> String? {
        guard let bytes = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"), !bytes.isEmpty,
            ChildProcess(pid: pid).isRunning
        else { return nil }
        return String(decoding: bytes.map { $0 == 0 ? 32 : $0 }, as: UTF8.self)
    }

    /// Whether the process's `SDLAB_CONTAINER` is a container of the run folder `folder`
    /// exactly (`FOLDER/containers/APP`): never one of `FOLDER2` or of `FOLDER/sub`.
    private static func isStartedByHook(_ pid: Int32, in folder: String) -> Bool {
        guard let environment = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
        let prefix = Array("SDLAB_CONTAINER=\(RunFolder.containers(in: folder))/".utf8)
        return environment.split(separator: 0).contains { entry in
            entry.starts(with: prefix) && !entry.dropFirst(prefix.count).contains(UInt8(ascii: "/"))
        }
    }
}
