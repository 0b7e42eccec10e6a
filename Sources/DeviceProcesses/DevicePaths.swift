import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Where the device finds its files.
public enum DevicePaths {
    /// `Bus/device.conf`: `$SDLAB_BUS_CONFIG` when set, else the first `Bus/device.conf` in
    /// the folders above the running executable (a build inside the checkout) or above the
    /// current directory.
    public static func busConfig() throws(LaunchError) -> String {
        if let configured = ProcessInfo.processInfo.environment["SDLAB_BUS_CONFIG"] { return configured }
        let starts = [
            URL(fileURLWithPath: executablePath()).deletingLastPathComponent(),
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
        ]
        for start in starts {
            var folder = start.standardizedFileURL
            while folder.path != "/" {
                let candidate = folder.appendingPathComponent("Bus/device.conf").path
                if FileManager.default.fileExists(atPath: candidate) { return candidate }
                folder.deleteLastPathComponent()
            }
        }
        throw LaunchError("cannot find Bus/device.conf above \(executablePath()); set SDLAB_BUS_CONFIG")
    }

    /// `$TMPDIR` or /tmp.
    public static var temporaryBase: String { ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp" }

    /// The running executable's real path.
    public static func executablePath() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// Makes a new private (0700) folder under `base`, by default `$TMPDIR` or /tmp.
    public static func makeTemporaryDirectory(prefix: String, in base: String = temporaryBase) throws(LaunchError)
        -> String
    {
        var template = Array("\(base)/\(prefix)-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw LaunchError("cannot create a folder in \(base): \(errorText())")
        }
        return String(cString: made)
    }

    /// Creates `path` (and its parents) private to the user, or checks that the folder there
    /// is one sdlab may trust: a folder (not a link) of this user that nobody else can write
    /// to, since files planted in it (a link named like one of ours) would be followed.
    public static func prepareDirectory(_ path: String) throws(LaunchError) {
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw LaunchError("cannot create \(path): \(error)")
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { throw LaunchError("cannot read \(path): \(errorText())") }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw LaunchError("refusing \(path): it is a link, not a folder")
        }
        guard info.st_uid == geteuid() else {
            throw LaunchError("refusing \(path): it belongs to another user (uid \(info.st_uid))")
        }
        guard info.st_mode & 0o022 == 0 else {
            throw LaunchError(
                "refusing \(path): others can write to it (mode \(String(info.st_mode & 0o777, radix: 8))); "
                    + "use a folder only you can write to")
        }
    }
}
