import CSystem
import FoundationEssentials
import Glibc

/// A command whose devices end with it adopts what their processes leave behind: an app's or a
/// hook's child whose parent ended becomes this process's child (Linux's child subreaper), in
/// whatever session and with whatever environment it put itself, and is stopped on the way out.
public enum Subreaper {
    /// From now on, orphans below this process are its children. False if the kernel refused.
    @discardableResult
    public static func adoptOrphans() -> Bool { sdlab_become_subreaper() == 0 }

    /// Kills and reaps every child this process still has, started or adopted; again while
    /// one that died left children of its own to us. Returns how many there were.
    @discardableResult
    public static func stopEveryChild() -> Int {
        var stopped = 0
        for _ in 0..<10 {
            let children = children()
            if children.isEmpty { break }
            for pid in children { kill(pid, SIGKILL) }
            for pid in children {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1, errno == EINTR {}
            }
            stopped += children.count
        }
        return stopped
    }

    /// This process's children: every process whose parent (`/proc/PID/stat`, the field after
    /// the state, past the command's closing parenthesis) is this one.
    static func children() -> [Int32] {
        let me = getpid()
        let pids = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap(Int32.init)
        return pids.filter { pid in
            guard let stat = FileManager.default.contents(atPath: "/proc/\(pid)/stat") else { return false }
            let text = String(decoding: stat, as: UTF8.self)
            guard let close = text.lastIndex(of: ")") else { return false }
            let fields = text[text.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == me
        }
    }
}
