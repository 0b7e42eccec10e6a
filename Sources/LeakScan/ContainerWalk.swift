import CFileAccess

#if canImport(Glibc)
    import Glibc
#endif

/// Every entry of a container, by its bytes: names are bytes, not text, so a name that is not
/// UTF-8 opens as it is. Folders and files are opened relative to the folder that holds them
/// (openat, O_NOFOLLOW), so a link planted in place of a folder is never followed out of the
/// container. What cannot be opened or read is handed on with the reason, never left out.
///
/// The walk keeps its folders on a list, not on the call stack, so no depth runs out of stack,
/// and it holds a descriptor for the deepest `heldFolders` folders only: going back up to a
/// folder it let go, it opens `..` and checks that this is the same folder.
struct ContainerWalk {
    enum Item {
        /// A regular file, open for reading, and its size.
        case file(descriptor: Int32, size: Int)
        /// A folder, open (its extended attributes are read too).
        case folder(descriptor: Int32)
        /// A symbolic link: what an attacker reads of it is its target's text.
        case link(target: [UInt8])
        /// A FIFO or a socket (`kind`): it holds no bytes at rest, only its name and attributes.
        case noBytesAtRest(kind: String)
        /// A block or character device node (`kind`): never opened, as it could be any disk.
        case deviceNode(kind: String, major: UInt32, minor: UInt32)
        /// Could not be listed, opened or read, and why.
        case unreadable(reason: String)
    }

    /// An entry as the walk meets it; its descriptors are open only while `visit` runs.
    struct Entry {
        let location: Location
        let item: Item

        /// Its path in the container, escaped as `PathText` does; `.` for the container.
        var place: String { location.place }
        /// The last `pathTailBytes` of its path in the container: a canary spelled across
        /// several folder names (one per step of a URL, say) is in it from the entry whose name
        /// ends it down.
        var pathTail: [UInt8] { location.pathTail }
        /// 0 for the container, 1 for what it holds, and so on: the folder holding an entry is
        /// the last folder visited one level up.
        var depth: Int { location.depth }

        /// Its extended attributes, read without following a link and without opening a FIFO,
        /// a socket or a device node; none for an entry that could not be read.
        func attributes() -> Result<[Attribute], ReadFailure> {
            switch item {
            case .file(let descriptor, _), .folder(let descriptor): ContainerWalk.attributes(of: descriptor)
            case .link, .noBytesAtRest, .deviceNode: ContainerWalk.attributes(named: location.name, in: location.folder)
            case .unreadable: .success([])
            }
        }
    }

    /// Where an entry is: its place, its depth, the tail of its path, and its name in its open folder.
    struct Location {
        let place: String
        var depth = 0
        var pathTail: [UInt8] = []
        /// The folder holding it, open (-1 for the container), and its name there.
        fileprivate var folder: Int32 = -1
        fileprivate var name: [UInt8] = []
    }

    /// An extended attribute, by bytes: an attacker reads its name as well as its value.
    struct Attribute {
        var name: [UInt8]
        var value: [UInt8]
    }

    /// Long enough to hold any canary (a user name is at most 128 bytes).
    static let pathTailBytes = 1024
    /// Folders the walk keeps open above the one it reads.
    static let heldFolders = 32

    let root: String
    /// Listed in a containers folder: then a container that cannot be found is one not read
    /// (a name that is not UTF-8, which a `String` path cannot carry), not one not made yet.
    var listed = false
    /// Whether an entry is out of scope (the scenario's declaration): not opened, nor its folder's contents.
    var outOfScope: (String) -> Bool = { _ in false }

    /// A folder being read: its names, listed once, and how far the walk is through them.
    private struct Folder {
        /// Open, or -1 once let go (reopened through `..` of the folder below it).
        var descriptor: Int32
        let device: UInt64
        let inode: UInt64
        let names: [[UInt8]]
        var next = 0
        /// The bytes of its path, raw and escaped, in the walk's shared paths.
        let pathLength: Int
        let shownLength: Int
    }

    /// Calls `visit` with each entry, folders before what they hold; descriptors are closed
    /// after `visit` returns.
    func walk(_ visit: (Entry) -> Void) {
        let container = Location(place: ".")
        let descriptor = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            // No container yet is nothing to read; anything else is a container not read.
            if errno != ENOENT || listed {
                visit(Entry(location: container, item: .unreadable(reason: "cannot be opened: \(Self.error(errno))")))
            }
            return
        }
        visit(Entry(location: container, item: .folder(descriptor: descriptor)))
        guard let root = Self.folder(descriptor, at: container, path: [], shown: [], visit) else {
            close(descriptor)
            return
        }
        var folders = [root]
        // The path of the entry at hand, raw and escaped: shared, cut back as the walk goes.
        var path: [UInt8] = []
        var shown: [UInt8] = []
        while let top = folders.indices.last {
            guard folders[top].next < folders[top].names.count else {
                leave(&folders, shown: shown, visit)
                continue
            }
            let name = folders[top].names[folders[top].next]
            folders[top].next += 1
            path.removeSubrange(folders[top].pathLength...)
            shown.removeSubrange(folders[top].shownLength...)
            if !path.isEmpty {
                path.append(0x2F)
                shown.append(0x2F)
            }
            path += name
            shown += PathText.escaped(name).utf8
            let place = String(decoding: shown, as: UTF8.self)
            guard !outOfScope(place) else { continue }
            let location = Location(
                place: place, depth: folders.count, pathTail: Array(path.suffix(Self.pathTailBytes)),
                folder: folders[top].descriptor, name: name)
            guard let child = visitEntry(at: location, path: path, shown: shown, visit) else { continue }
            folders.append(child)
            let released = folders.count - 1 - Self.heldFolders
            if released >= 0, folders[released].descriptor >= 0 {
                close(folders[released].descriptor)
                folders[released].descriptor = -1
            }
        }
    }

    /// The folder on top is read: closed, and the one above it open again if it was let go.
    private func leave(_ folders: inout [Folder], shown: [UInt8], _ visit: (Entry) -> Void) {
        let done = folders.removeLast()
        defer { if done.descriptor >= 0 { close(done.descriptor) } }
        guard let top = folders.indices.last, folders[top].descriptor < 0 else { return }
        let parent = done.descriptor >= 0 ? openat(done.descriptor, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1
        var status = stat()
        if parent >= 0, fstat(parent, &status) == 0, UInt64(status.st_dev) == folders[top].device,
            UInt64(status.st_ino) == folders[top].inode
        {
            folders[top].descriptor = parent
            return
        }
        if parent >= 0 { close(parent) }
        // Moved while the scan read it: what is left in it cannot be reached again from here.
        let left = folders[top].names.count - folders[top].next
        folders[top].next = folders[top].names.count
        guard left > 0 else { return }
        let place =
            folders[top].shownLength == 0
            ? "." : String(decoding: shown.prefix(folders[top].shownLength), as: UTF8.self)
        let reason = "was moved while the scan read it: \(left) of its entries cannot be reached"
        visit(Entry(location: Location(place: place, depth: top), item: .unreadable(reason: reason)))
    }

    /// The open folder `descriptor` at `location` listed; nil (and said) when it cannot be.
    private static func folder(
        _ descriptor: Int32, at location: Location, path: [UInt8], shown: [UInt8], _ visit: (Entry) -> Void
    ) -> Folder? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let reason = "cannot be looked at: \(error(errno))"
            visit(
                Entry(
                    location: Location(place: location.place, depth: location.depth), item: .unreadable(reason: reason))
            )
            return nil
        }
        let (names, failure) = Self.names(in: descriptor)
        if let failure {
            let reason = "\(names.isEmpty ? "cannot be listed" : "cannot be listed to its end"): \(error(failure))"
            visit(
                Entry(
                    location: Location(place: location.place, depth: location.depth), item: .unreadable(reason: reason))
            )
        }
        return Folder(
            descriptor: descriptor, device: UInt64(status.st_dev), inode: UInt64(status.st_ino),
            names: names.sorted { $0.lexicographicallyPrecedes($1) }, pathLength: path.count, shownLength: shown.count)
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

    /// Visits the entry at `location`; returns it listed when it is a folder to walk into, open.
    private func visitEntry(at location: Location, path: [UInt8], shown: [UInt8], _ visit: (Entry) -> Void) -> Folder? {
        func visitAs(_ item: Item) { visit(Entry(location: location, item: item)) }
        let cName = location.name.map { CChar(bitPattern: $0) } + [0]
        var status = stat()
        guard fstatat(location.folder, cName, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
            // Gone since the listing: deleted while the scan ran is not there to read.
            if errno != ENOENT { visitAs(.unreadable(reason: "cannot be looked at: \(Self.error(errno))")) }
            return nil
        }
        // The entry opened with `flags`; nil when it cannot be (said, unless it is gone).
        func opened(_ flags: Int32) -> Int32? {
            let descriptor = openat(location.folder, cName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | flags)
            guard descriptor < 0 else { return descriptor }
            let code = errno
            if code != ENOENT {
                let mode = " (mode \(String(status.st_mode & 0o7777, radix: 8)), owner \(status.st_uid))"
                visitAs(.unreadable(reason: "cannot be opened: \(Self.error(code))" + mode))
            }
            return nil
        }
        switch status.st_mode & S_IFMT {
        case S_IFDIR:
            guard let descriptor = opened(O_DIRECTORY) else { return nil }
            visitAs(.folder(descriptor: descriptor))
            guard let folder = Self.folder(descriptor, at: location, path: path, shown: shown, visit) else {
                close(descriptor)
                return nil
            }
            return folder
        case S_IFREG:
            guard let descriptor = opened(O_NONBLOCK) else { return nil }
            defer { close(descriptor) }
            // Its size now, not at the listing.
            var current = stat()
            let size = fstat(descriptor, &current) == 0 ? Int(current.st_size) : Int(status.st_size)
            visitAs(.file(descriptor: descriptor, size: size))
        case S_IFLNK:
            var target = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = target.withUnsafeMutableBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) {
                    readlinkat(location.folder, cName, $0.baseAddress!, $0.count)
                }
            }
            guard count >= 0 else {
                if errno != ENOENT { visitAs(.unreadable(reason: "its target cannot be read: \(Self.error(errno))")) }
                return nil
            }
            visitAs(.link(target: Array(target.prefix(count))))
        case S_IFIFO: visitAs(.noBytesAtRest(kind: "FIFO"))
        case S_IFSOCK: visitAs(.noBytesAtRest(kind: "socket"))
        default:
            // Never opened: opening a device node is acting on the device.
            let device = UInt64(status.st_rdev)
            let major = UInt32(truncatingIfNeeded: ((device >> 8) & 0xFFF) | ((device >> 32) & ~0xFFF))
            let minor = UInt32(truncatingIfNeeded: (device & 0xFF) | ((device >> 12) & ~0xFF))
            visitAs(
                .deviceNode(
                    kind: status.st_mode & S_IFMT == S_IFBLK ? "block" : "character", major: major, minor: minor))
        }
        return nil
    }

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

    /// The extended attributes of an open file or folder: bytes an attacker reads beside the content.
    static func attributes(of descriptor: Int32) -> Result<[Attribute], ReadFailure> {
        attributes(
            list: { flistxattr(descriptor, $0, $1) }, value: { fgetxattr(descriptor, $0, $1, $2) })
    }

    /// The extended attributes of the entry `name` of the open folder `folder`, the entry itself
    /// (a link is not followed, nothing is opened): reached as `/proc/self/fd/FOLDER/NAME`,
    /// which no depth makes longer.
    static func attributes(named name: [UInt8], in folder: Int32) -> Result<[Attribute], ReadFailure> {
        let path =
            Array("/proc/self/fd/\(folder)/".utf8).map { CChar(bitPattern: $0) }
            + name.map { CChar(bitPattern: $0) } + [0]
        return attributes(list: { llistxattr(path, $0, $1) }, value: { lgetxattr(path, $0, $1, $2) })
    }

    /// The attributes `list` lists, each value read with `value`; sizes that change between
    /// the calls (`ERANGE`) are asked again.
    private static func attributes(
        list: (UnsafeMutablePointer<CChar>?, Int) -> Int,
        value: (UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int
    ) -> Result<[Attribute], ReadFailure> {
        func sized<Element>(
            _ element: Element, _ call: (UnsafeMutableBufferPointer<Element>?) -> Int
        ) -> Result<[Element], ReadFailure> {
            while true {
                let size = call(nil)
                // No attributes on this file system, or removed since the listing: none to read.
                if size < 0, errno == ENOTSUP || errno == ENODATA { return .success([]) }
                if size < 0 { return .failure(.error(error(errno))) }
                guard size > 0 else { return .success([]) }
                var bytes = [Element](repeating: element, count: size)
                let read = bytes.withUnsafeMutableBufferPointer { call($0) }
                if read < 0, errno == ERANGE { continue }
                guard read >= 0 else { return .failure(.error(error(errno))) }
                return .success(Array(bytes.prefix(read)))
            }
        }
        let names: [CChar]
        switch sized(CChar(0), { list($0?.baseAddress, $0?.count ?? 0) }) {
        case .failure(let failure): return .failure(failure)
        case .success(let listed): names = listed
        }
        var attributes: [Attribute] = []
        for name in names.split(separator: 0) {
            let cName = Array(name) + [0]
            switch sized(UInt8(0), { value(cName, $0?.baseAddress.map(UnsafeMutableRawPointer.init), $0?.count ?? 0) })
            {
            case .failure(let failure): return .failure(failure)
            case .success(let bytes):
                attributes.append(Attribute(name: name.map { UInt8(bitPattern: $0) }, value: bytes))
            }
        }
        return .success(attributes)
    }
}
