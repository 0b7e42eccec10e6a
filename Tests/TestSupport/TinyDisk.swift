import DeviceProcesses
import Foundation

/// A small tmpfs mounted for a test, to fill up: a full disk without filling the machine's.
/// Mounting needs root and the right to mount; where it is refused, `canMount` is false.
public enum TinyDisk {
    /// Mounts a tmpfs of `kib` KiB at `folder` (made if missing, private); false if refused.
    public static func mount(_ kib: Int, at folder: String) -> Bool {
        guard geteuid() == 0, (try? DevicePaths.prepareDirectory(folder)) != nil,
            let (mount, _) = try? ChildProcess.spawn(
                "/bin/mount", ["-t", "tmpfs", "-o", "size=\(kib)k,mode=0700", "tmpfs", folder])
        else { return false }
        return mount.exitStatus(timeout: .seconds(10)) == .exited(0)
    }

    /// Unmounts what `mount` mounted at `folder`.
    public static func unmount(_ folder: String) {
        if let (umount, _) = try? ChildProcess.spawn("/bin/umount", ["-l", folder]) {
            _ = umount.exitStatus(timeout: .seconds(10))
        }
    }

    /// Whether this machine lets a test mount one.
    public static let canMount: Bool = {
        guard let folder = try? DevicePaths.makeTemporaryDirectory(prefix: "sdlab-tiny") else { return false }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        guard mount(64, at: folder) else { return false }
        unmount(folder)
        return true
    }()

    /// Fills the disk at `folder` with a file of its own until `pagesLeft` 4 KiB pages are free.
    public static func fill(_ folder: String, leaving pagesLeft: Int = 0) throws {
        let fd = open(folder + "/filler", O_WRONLY | O_CREAT | O_APPEND, 0o600)
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
        defer { close(fd) }
        let page = [UInt8](repeating: 0, count: 4096)
        var free = statvfs()
        statvfs(folder, &free)
        for _ in 0..<max(0, Int(free.f_bavail) - pagesLeft) where write(fd, page, page.count) == page.count {}
    }

    /// Frees what `fill` took.
    public static func free(_ folder: String) { unlink(folder + "/filler") }

    public static let whyNot = "mounting a small tmpfs needs root and the right to mount"
}
