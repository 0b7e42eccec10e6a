import CFileAccess
import DeviceProcesses
import Foundation
import LeakScan
import SharedDevice
import TestSupport
import Testing

/// What an app can leave that is not a file's content: records spelled in names (a folder per
/// step of a URL, an extended attribute's name), attributes on links, FIFOs and sockets, a
/// device node, and folders nested past any path length. Each is read, or the scan says it could not.
@Suite(.ownThread) struct HostileContainerEntryTests {
    /// A URL cache keeps a folder per step of the URL: the canary spans several folder names,
    /// and is found once, at the folder whose name ends it, not again at everything below it.
    @Test func aCanarySpelledAcrossFolderNamesIsFound() throws {
        let container = try ScratchContainer()
        let cached = "Library/Caches/fsCachedData/\(canary(1))"
        try container.write(Array("<html>cached page</html>".utf8), to: cached + "/edit/index.html")
        #expect(container.sightings() == ["\(cached) [name] \(canary(1))"])
    }

    /// An extended attribute's name is read as well as its value.
    @Test func aCanaryInAnAttributeNameIsFound() throws {
        let container = try ScratchContainer()
        try container.write(Array("plain".utf8), to: "Documents/note.txt")
        let name = "user.\(canary(2))"
        let attached = setxattr(container.path("Documents/note.txt"), name, "1", 1, 0)
        guard attached == 0 else {
            print("skipped: this file system keeps no user attributes (\(String(cString: strerror(errno))))")
            return
        }
        #expect(container.sightings() == ["Documents/note.txt [xattr-name] \(canary(2))"])
    }

    /// A link's own attributes, and a FIFO's and a socket's names and attributes, are read
    /// without following the link or opening the FIFO; both are named in the scan's notes.
    @Test func linksFIFOsAndSocketsAreReadByNameAndAttributes() throws {
        let container = try ScratchContainer()
        try container.write(Array("plain".utf8), to: "Documents/note.txt")
        // A FIFO whose name ends a canary its folders' names begin, and a socket named with one in base64.
        let fifo = "Documents/\(canary(4))"
        let socket = "Documents/" + Data(canary(5).description.utf8).base64EncodedString()
        try FileManager.default.createDirectory(
            atPath: container.path((fifo as NSString).deletingLastPathComponent), withIntermediateDirectories: true)
        #expect(mkfifo(container.path(fifo), 0o600) == 0)
        #expect(mknod(container.path(socket), S_IFSOCK | 0o600, 0) == 0)
        #expect(symlink("note.txt", container.path("Documents/shortcut")) == 0)
        var expected = [
            "\(fifo) [name] \(canary(4))", "\(socket) [name > base64] \(canary(5))",
        ]
        // Only root may give a link, a FIFO or a socket attributes (trusted.*): user.* is for
        // files and folders.
        if geteuid() == 0 {
            for (place, number) in [("Documents/shortcut", 3), (fifo, 6), (socket, 7)] {
                let value = Array(canary(number).description.utf8)
                #expect(lsetxattr(container.path(place), "trusted.note", value, value.count, 0) == 0)
                expected.append("\(place) [xattr:trusted.note] \(canary(number))")
            }
        } else {
            print("attributes of links, FIFOs and sockets not tried: only root may set them")
        }
        let scan = container.scan()
        #expect(scan.isComplete)
        #expect(container.sightings() == expected.sorted())
        #expect(
            scan.notes.map(\.description) == [
                "\(fifo) is a FIFO: it holds no bytes at rest; its name and attributes were read",
                "\(socket) is a socket: it holds no bytes at rest; its name and attributes were read",
            ])
        #expect(scan.notes.allSatisfy { $0.app == "notes" })
    }

    /// A device node could be any disk: it is never opened (a watch on it sees no open), and the
    /// scan is incomplete, naming it.
    @Test func aDeviceNodeIsNamedAndNeverOpened() throws {
        guard geteuid() == 0 else {
            print("skipped: only root can make device nodes")
            return
        }
        let container = try ScratchContainer()
        let disk = container.path("Documents/disk")
        let null = container.path("Documents/null")
        try FileManager.default.createDirectory(atPath: container.path("Documents"), withIntermediateDirectories: true)
        #expect(mknod(disk, S_IFBLK | 0o600, Self.device(8, 0)) == 0)
        #expect(mknod(null, S_IFCHR | 0o600, Self.device(1, 3)) == 0)
        let watch = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        try #require(watch >= 0)
        defer { close(watch) }
        for node in [disk, null] { #expect(inotify_add_watch(watch, node, UInt32(IN_OPEN)) >= 0) }

        let scan = container.scan()
        #expect(!scan.isComplete)
        #expect(
            scan.unreadable.map { "\($0.place) \($0.reason)" } == [
                "Documents/disk is a block device node (8:0), which no iOS app can make: its content is not read",
                "Documents/null is a character device node (1:3), which no iOS app can make: its content is not read",
            ])
        #expect(Self.opens(seenBy: watch) == 0, "the scan opened a device node")
        // The watch sees an open: opening the null device is harmless.
        close(open(null, O_RDONLY))
        #expect(Self.opens(seenBy: watch) == 1)
    }

    /// 15,000 folders deep (30,000 bytes of path, past PATH_MAX): the walk holds a few
    /// descriptors and no stack per folder, and finds the record at the bottom; the tree is
    /// then removed by descriptors.
    @Test func aRecordFifteenThousandFoldersDeepIsFound() throws {
        let container = try ScratchContainer()
        let depth = 15_000
        try Self.nest(depth, in: container.root, record: record(canary(8)))
        let started = ContinuousClock.now
        let scan = container.scan()
        print("the walk read \(depth) folders in \(ContinuousClock.now - started)")
        #expect(scan.isComplete, "\(scan.unreadable.prefix(1).map(\.reason))")
        let bottom = String(repeating: "d/", count: depth) + "record.txt"
        #expect(scan.map { "\($0.place == bottom ? "BOTTOM" : $0.place) \($0.canary)" } == ["BOTTOM \(canary(8))"])

        try TreeRemoval.remove(container.root)
        #expect(access(container.root, F_OK) != 0)
    }

    /// Makes `depth` folders `d` one in another beneath `root`, by descriptors (the path is
    /// longer than the kernel takes), and writes `record` at the bottom.
    static func nest(_ depth: Int, in root: String, record: [UInt8]) throws {
        var folder = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try #require(folder >= 0)
        defer { close(folder) }
        for _ in 0..<depth {
            try #require(mkdirat(folder, "d", 0o700) == 0)
            let below = openat(folder, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            try #require(below >= 0)
            close(folder)
            folder = below
        }
        let file = openat(folder, "record.txt", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        try #require(file >= 0)
        defer { close(file) }
        #expect(Glibc.write(file, record, record.count) == record.count)
    }

    /// A device number as the kernel packs it for small numbers (major < 4096, minor < 256).
    static func device(_ major: UInt64, _ minor: UInt64) -> dev_t { dev_t(major << 8 | minor) }

    /// How many opens the inotify descriptor `watch` has seen since it was last read.
    static func opens(seenBy watch: Int32) -> Int {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(watch, &buffer, buffer.count)
        guard count > 0 else { return 0 }
        // struct inotify_event: wd (4), mask (4), cookie (4), len (4), name[len].
        var offset = 0
        var opens = 0
        while offset + 16 <= count {
            let mask = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self) }
            let length = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self) }
            if mask & UInt32(IN_OPEN) != 0 { opens += 1 }
            offset += 16 + Int(length)
        }
        return opens
    }
}
