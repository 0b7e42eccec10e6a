import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The cleanup hook an app is running, noted in its container (`running-hook.pid`) so that the hook
/// dies with the app. A hook runs in a session of its own, so that a timeout stops everything
/// it started, and so a SIGKILL to the app does not reach it: whoever finds the app gone (the
/// runner, or the app at its next launch) stops the hook's group.
public enum HookRecord {
    static func path(in container: String) -> String { container + "/running-hook.pid" }

    public static func note(_ pid: Int32, in container: String) {
        _ = FileManager.default.createFile(
            atPath: path(in: container), contents: Data("\(pid)".utf8),
            attributes: [.posixPermissions: 0o600])
    }

    public static func clear(in container: String) {
        unlink(path(in: container))
    }

    /// Stops the group of the hook noted in `container` if it still runs. A PID since reused by
    /// another process is left alone: the hook's environment names its container.
    public static func stopLeftover(in container: String) {
        guard let text = FileManager.default.contents(atPath: path(in: container)),
            let pid = Int32(String(decoding: text, as: UTF8.self)), pid > 1
        else { return }
        if let environment = FileManager.default.contents(atPath: "/proc/\(pid)/environ"),
            environment.split(separator: 0).contains(where: { $0.elementsEqual("SDLAB_CONTAINER=\(container)".utf8) })
        {
            kill(-pid, SIGKILL)
        }
        clear(in: container)
    }
}
