import CFileAccess

#if canImport(Glibc)
    import Glibc
#endif

/// Every entry of a container, by its bytes: names are bytes, not text, so a name that is not
/// UTF-8 opens as it is. Folders and files are opened relative to the folder that holds them
/// (openat, O_NOFOLLOW), so a link planted in place of a folder is never followed out of the
/// container. What cannot be opened or read is handed on with the reason, never left out.
struct ContainerWalk {
    enum Item {
        /// A regular file, open for reading, and its size.
        case file(descriptor: Int32, size: Int)
        /// A folder, open (its extended attributes are read too).
        case folder(descriptor: Int32)
        /// A symbolic link: what an attacker reads of it is its target's text.
        case link(target: [UInt8])
        /// Could not be listed, opened or read, and why.
        case unreadable(reason: String)
    }

    let root: String
    /// Listed in a containers folder: then a container that cannot be found is one not read
    /// (a name that is not UTF-8, which a `String` path cannot carry), not one not made yet.
    var listed = false
    /// Whether an entry is out of scope (the scenario's declaration): not opened, nor its folder's contents.
    var outOfScope: (String) -> Bool = { _ in false }
    /// Which regular files to open and visit, by their size at the listing (a walk for keys
    /// wants only those of a key's size); nil: all.
    var opensFile: ((Int) -> Bool)?

    /// Calls `visit` with each entry's place (its path in the container, escaped as
    /// `PathText` does) and what it is; descriptors are closed after `visit` returns.
    func walk(_ visit: (String, Item) -> Void) {
        let descriptor = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            // No container yet is nothing to read; anything else is a container not read.
            if errno != ENOENT || listed { visit(".", .unreadable(reason: "cannot be opened: \(Self.error(errno))")) }
            return
        }
        defer { close(descriptor) }
        visit(".", .folder(descriptor: descriptor))
        walk(folder: descriptor, place: [], visit)
    }

    /// Lists the open folder `folder` at `place` and visits its entries, folders depth first.
    private func walk(folder: Int32, place: [UInt8], _ visit: (String, Item) -> Void) {
        let (names, failure) = Self.names(in: folder)
        if let failure {
            let reason = names.isEmpty ? "cannot be listed" : "cannot be listed to its end"
            visit(Self.text(place), .unreadable(reason: "\(reason): \(Self.error(failure))"))
        }
        for name in names.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            let path = place.isEmpty ? name : place + [0x2F] + name
            let shown = Self.text(path)
            guard !outOfScope(shown) else { continue }
            visitEntry(name, in: folder, path: path, shown: shown, visit)
        }
    }

    /// The names in the open folder `folder`, but `.` and `..`, read through its own descriptor
    /// (no second descriptor, no stream); and the error that ended the listing early, if one did.
    private static func names(in folder: Int32) -> (names: [[UInt8]], failure: Int32?) {
        var names: [[UInt8]] = []
        return withUnsafeTemporaryAllocation(byteCount: 8192, alignment: 8) { buffer in
            while true {
                let count = sdlab_getdents64(folder, buffer.baseAddress, UInt(buffer.count))
                if count < 0, errno == EINTR { continue }
                if count < 0 { return (names, errno) }
                if count == 0 { return (names, nil) }
                // struct linux_dirent64: d_ino, d_off (8 bytes each), d_reclen (2), d_type (1), d_name.
                var offset = 0
                while offset < count {
                    let record = UnsafeRawBufferPointer(rebasing: buffer[offset..<count])
                    let length = Int(record.loadUnaligned(fromByteOffset: 16, as: UInt16.self))
                    let name = Array(record[19..<length].prefix { $0 != 0 })
                    if name != [0x2E], name != [0x2E, 0x2E] { names.append(name) }
                    offset += length
                }
            }
        }
    }

    private func visitEntry(
        _ name: [UInt8], in folder: Int32, path: [UInt8], shown: String, _ visit: (String, Item) -> Void
    ) {
        let cName = name.map { CChar(bitPattern: $0) } + [0]
        var status = stat()
        guard fstatat(folder, cName, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
            // Gone since the listing: deleted while the scan ran is not there to read.
            if errno != ENOENT { visit(shown, .unreadable(reason: "cannot be looked at: \(Self.error(errno))")) }
            return
        }
        // The entry opened with `flags`; nil when it cannot be (said, unless it is gone).
        func opened(_ flags: Int32) -> Int32? {
            let descriptor = openat(folder, cName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | flags)
            guard descriptor < 0 else { return descriptor }
            let code = errno
            if code != ENOENT {
                let mode = " (mode \(String(status.st_mode & 0o7777, radix: 8)), owner \(status.st_uid))"
                visit(shown, .unreadable(reason: "cannot be opened: \(Self.error(code))" + mode))
            }
            return nil
        }
        switch status.st_mode & S_IFMT {
        case S_IFDIR:
            guard let descriptor = opened(O_DIRECTORY) else { return }
            defer { close(descriptor) }
            visit(shown, .folder(descriptor: descriptor))
            walk(folder: descriptor, place: path, visit)
        case S_IFREG:
            if let opensFile, !opensFile(Int(status.st_size)) { return }
            guard let descriptor = opened(O_NONBLOCK) else { return }
            defer { close(descriptor) }
            // Its size now, not at the listing.
            var current = stat()
            let size = fstat(descriptor, &current) == 0 ? Int(current.st_size) : Int(status.st_size)
            visit(shown, .file(descriptor: descriptor, size: size))
        case S_IFLNK:
            var target = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = target.withUnsafeMutableBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { readlinkat(folder, cName, $0.baseAddress!, $0.count) }
            }
            guard count >= 0 else {
                if errno != ENOENT {
                    visit(shown, .unreadable(reason: "its target cannot be read: \(Self.error(errno))"))
                }
                return
            }
            visit(shown, .link(target: Array(target.prefix(count))))
        default:
            // Sockets and pipes hold no bytes at rest, and an app cannot make device files.
            return
        }
    }

    static func text(_ place: [UInt8]) -> String { place.isEmpty ? "." : PathText.escaped(place) }

    static func error(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// A file's bytes, at most `limit` (a larger file is not read: nil), or why they cannot be read.
    static func contents(of descriptor: Int32, size: Int, limit: Int) -> Result<[UInt8], ReadFailure> {
        guard size <= limit else { return .failure(.tooLarge(size)) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        // One read more than its size finds its end; a small file needs no 64 KiB buffer.
        var buffer = [UInt8](repeating: 0, count: min(max(size + 1, 4096), 64 << 10))
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            if count < 0 { return .failure(.error(error(errno))) }
            guard count > 0 else { return .success(bytes) }
            bytes += buffer[..<count]
            // It grew while it was read.
            if bytes.count > limit { return .failure(.tooLarge(bytes.count)) }
        }
    }

    enum ReadFailure: Error, CustomStringConvertible {
        case tooLarge(Int)
        case error(String)

        var description: String {
            switch self {
            case .tooLarge(let size): "\(size) bytes"
            case .error(let error): error
            }
        }
    }

    /// The extended attributes of an open file or folder, name and value: bytes an attacker
    /// reads beside the content.
    static func attributes(of descriptor: Int32) -> Result<[(name: String, value: [UInt8])], ReadFailure> {
        let size = flistxattr(descriptor, nil, 0)
        if size < 0 { return errno == ENOTSUP ? .success([]) : .failure(.error(error(errno))) }
        guard size > 0 else { return .success([]) }
        var names = [CChar](repeating: 0, count: size)
        let listed = flistxattr(descriptor, &names, names.count)
        guard listed >= 0 else { return .failure(.error(error(errno))) }
        var attributes: [(name: String, value: [UInt8])] = []
        for name in names.prefix(listed).split(separator: 0) {
            let cName = Array(name) + [0]
            let length = fgetxattr(descriptor, cName, nil, 0)
            guard length >= 0 else { return .failure(.error(error(errno))) }
            var value = [UInt8](repeating: 0, count: length)
            let read = fgetxattr(descriptor, cName, &value, value.count)
            guard read >= 0 else { return .failure(.error(error(errno))) }
            attributes.append((PathText.escaped(name.map { UInt8(bitPattern: $0) }), Array(value.prefix(read))))
        }
        return .success(attributes)
    }
}
