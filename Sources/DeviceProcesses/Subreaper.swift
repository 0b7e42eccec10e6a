import CSystem
import Glibc

/// A command whose devices end with it adopts what their processes leave behind: an app's or a
/// hook's child whose parent ended becomes this process's child (Linux's child subreaper), in
/// whatever session and with whatever environment it put itself, and is stopped on the way out.
public enum Subreaper {
    /// From now on, orphans below this process are its children.
    public static func adoptOrphans() { _ = sdlab_become_subreaper() }

    /// Kills and reaps every child this process still has, started or adopted; again while
    /// one that died left children of its own to us.
    public static func stopEveryChild() {
        for _ in 0..<10 {
            let me = getpid()
            let children = LiveProcesses.allPIDs().filter { ChildProcess(pid: $0).parentID == me }
            if children.isEmpty { return }
            for pid in children { kill(pid, SIGKILL) }
            for pid in children {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1, errno == EINTR {}
            }
        }
    }
}
