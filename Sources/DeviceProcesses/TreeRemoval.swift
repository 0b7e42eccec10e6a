#if canImport(Glibc)
    import Glibc
#endif

/// Removes a folder and everything in it, however deep: the run folders hold what apps wrote,
/// and an app can nest folders past any path length and any stack. The walk is a loop with a
/// list of names, not recursion; it works through descriptors (`openat`, `unlinkat`), never
/// through a path longer than one name, and holds two folders open at most: going back up, it
/// opens `..` and checks that this is the folder it came down from. Links are removed, never
/// followed; names are bytes, so a name that is not UTF-8 goes too.
public enum TreeRemoval {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Removes `path` (a folder with all it holds, or anything else by itself); one that is not
    /// there is fine. Folders this user owns but cannot read or write are opened up to be emptied.
    public static func remove(_ path: String) throws(Failure) {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            if errno == ENOENT { return }
            throw Failure(description: "cannot look at \(path): \(errorText())")
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            guard unlink(path) == 0 || errno == ENOENT else {
                throw Failure(description: "cannot remove \(path): \(errorText())")
            }
            return
        }
        let top = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard top >= 0 else { throw Failure(description: "cannot open \(path): \(errorText())") }
        try empty(top, at: path)
        guard rmdir(path) == 0 || errno == ENOENT else {
            throw Failure(description: "cannot remove \(path): \(errorText())")
        }
    }

    /// A folder on the way down: its name in the folder above, and who that folder is.
    private struct Step {
        let name: [CChar]
        let aboveDevice: UInt64
        let aboveInode: UInt64
    }

    /// Empties the open folder `top` (and closes it): each folder beneath is emptied, then removed
    /// from the folder above it.
    private static func empty(_ top: Int32, at path: String) throws(Failure) {
        var current = top
        defer { close(current) }
        var steps: [Step] = []
        func failure(_ what: String) -> Failure {
            Failure(description: "cannot remove \(path): \(what) \(steps.count) folders deep: \(errorText())")
        }
        while true {
            if let name = try firstFolderLeft(in: current, failure) {
                var status = stat()
                guard fstat(current, &status) == 0 else { throw failure("cannot look at a folder") }
                let below = openBelow(current, name)
                guard below >= 0 else { throw failure("cannot open a folder") }
                steps.append(Step(name: name, aboveDevice: UInt64(status.st_dev), aboveInode: UInt64(status.st_ino)))
                close(current)
                current = below
                continue
            }
            guard let step = steps.popLast() else { return }
            let above = openat(current, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard above >= 0 else { throw failure("cannot open the folder above") }
            var status = stat()
            guard fstat(above, &status) == 0, UInt64(status.st_dev) == step.aboveDevice,
                UInt64(status.st_ino) == step.aboveInode
            else {
                close(above)
                throw Failure(description: "cannot remove \(path): a folder in it was moved while it was removed")
            }
            close(current)
            current = above
            guard unlinkat(current, step.name, AT_REMOVEDIR) == 0 || errno == ENOENT else {
                throw failure("cannot remove an emptied folder")
            }
        }
    }

    /// Removes every entry of the open folder `folder` but the folders that are not empty, and
    /// returns the first of those; nil once the folder is empty.
    private static func firstFolderLeft(
        in folder: Int32, _ failure: (String) -> Failure
    ) throws(Failure) -> [CChar]? {
        var openedUp = false
        while true {
            let (names, listed) = names(in: folder)
            guard listed else {
                // A folder of ours made unreadable (`chmod 000`) is opened up, once.
                if errno == EACCES, !openedUp, fchmod(folder, 0o700) == 0 {
                    openedUp = true
                    continue
                }
                throw failure("cannot list a folder")
            }
            var refused = false
            for name in names {
                if unlinkat(folder, name, 0) == 0 || errno == ENOENT { continue }
                if errno == EISDIR {
                    if unlinkat(folder, name, AT_REMOVEDIR) == 0 || errno == ENOENT { continue }
                    if errno == ENOTEMPTY || errno == EEXIST { return name }
                }
                guard errno == EACCES || errno == EPERM, !openedUp else { throw failure("cannot remove an entry") }
                refused = true
                break
            }
            guard refused else { return nil }
            // A folder of ours made read-only: its entries can be removed once it is writable.
            guard fchmod(folder, 0o700) == 0 else { throw failure("cannot remove an entry") }
            openedUp = true
        }
    }

    /// The folder `name` of the open folder `folder`, open; made readable first if it is ours and is not.
    private static func openBelow(_ folder: Int32, _ name: [CChar]) -> Int32 {
        let flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
        let below = openat(folder, name, flags)
        guard below < 0, errno == EACCES, fchmodat(folder, name, 0o700, 0) == 0 else { return below }
        return openat(folder, name, flags)
    }

    /// The names in the open folder `folder`, but `.` and `..`, as bytes ending in NUL; and
    /// whether it could be listed (if not, `errno` says why).
    private static func names(in folder: Int32) -> (names: [[CChar]], listed: Bool) {
        let copy = dup(folder)
        guard copy >= 0 else { return ([], false) }
        guard let stream = fdopendir(copy) else {
            let code = errno
            close(copy)
            errno = code
            return ([], false)
        }
        defer { closedir(stream) }
        // The copy shares its offset with `folder`, which an earlier listing left at the end.
        rewinddir(stream)
        var names: [[CChar]] = []
        errno = 0
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                bytes.prefix { $0 != 0 }.map { CChar(bitPattern: $0) }
            }
            if name != [0x2E], name != [0x2E, 0x2E] { names.append(name + [0]) }
            errno = 0
        }
        return (names, errno == 0)
    }
}
