import DeviceProcesses
import Foundation
import TestSupport
import Testing

/// A file replaced in one step, by exchange with its `.swap` sibling.
@Suite struct AtomicFileTests {
    static func inode(_ path: String) throws -> UInt64 {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? UInt64)
    }

    @Test func replacingReusesTheSameTwoFilesAndKeepsThemPrivate() throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-atomic-test")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/item.json"
        try AtomicFile.write(Data("first, and longer than the rest".utf8), to: path)
        try AtomicFile.write(Data("second".utf8), to: path)
        let pair = Set([try Self.inode(path), try Self.inode(path + ".swap")])
        for round in 3...6 {
            try AtomicFile.write(Data("round \(round)".utf8), to: path)
            #expect(
                try String(contentsOfFile: path, encoding: .utf8) == "round \(round)",
                "nothing of a longer old content is left")
            #expect(
                try String(contentsOfFile: path + ".swap", encoding: .utf8) == "round \(round)",
                "no previous content is left")
            #expect(Set([try Self.inode(path), try Self.inode(path + ".swap")]) == pair, "no new inode per write")
        }
        for file in [path, path + ".swap"] {
            #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600)
        }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["item.json", "item.json.swap"])
    }

    @Test func aFolderThatCannotBeWrittenIsAnError() throws {
        #expect(throws: AtomicFile.Failure.self) {
            try AtomicFile.write(Data("x".utf8), to: "/proc/sdlab-no-such-folder/item.json")
        }
    }
}

/// Files in a folder someone else could write to are never followed (a link planted there
/// would redirect our writes), and such a folder is refused outright.
@Suite struct PlantedFileTests {
    @Test func aLinkPlantedAsTheSwapFileIsNotFollowed() throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-planted")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let target = folder + "/victim.txt"
        try Data("untouched".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: folder + "/state.json.swap", withDestinationPath: target)
        #expect(throws: AtomicFile.Failure.self) {
            try AtomicFile.write(Data("secret".utf8), to: folder + "/state.json")
        }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "untouched")
        #expect(!FileManager.default.fileExists(atPath: folder + "/state.json"))
    }

    @Test func aFolderOthersCanWriteToIsRefused() throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-shared")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        chmod(folder, 0o777)
        #expect {
            try DevicePaths.prepareDirectory(folder)
        } throws: { error in
            "\(error)".contains("others can write to it (mode 777)")
        }
        chmod(folder, 0o755)
        try DevicePaths.prepareDirectory(folder)
        try DevicePaths.prepareDirectory(folder + "/new/inner")
        #expect(
            try FileManager.default.attributesOfItem(atPath: folder + "/new/inner")[.posixPermissions] as? Int == 0o700)
    }

    @Test func aLinkOrAnotherUsersFolderIsRefused() throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-foreign")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/real", withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: folder + "/real")
        #expect {
            try DevicePaths.prepareDirectory(folder + "/link")
        } throws: { error in
            "\(error)".contains("it is a link, not a folder")
        }
        // Another user's folder: only root can make one here.
        guard geteuid() == 0 else { return }
        try FileManager.default.createDirectory(atPath: folder + "/theirs", withIntermediateDirectories: false)
        chown(folder + "/theirs", 65534, 65534)
        #expect {
            try DevicePaths.prepareDirectory(folder + "/theirs")
        } throws: { error in
            "\(error)".contains("belongs to another user (uid 65534)")
        }
    }
}

/// A full disk in the middle of a save: once the new content is in place the save has
/// succeeded, and nothing of the old content is left in the swap file.
@Suite struct FullDiskTests {
    @Test(.enabled(if: TinyDisk.canMount, .init(rawValue: TinyDisk.whyNot)))
    func theSaveSucceedsOnceTheNewContentIsInPlace() throws {
        let disk = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-full")
        defer { try? FileManager.default.removeItem(atPath: disk) }
        try #require(TinyDisk.mount(64, at: disk), "cannot mount a tmpfs here")
        defer { TinyDisk.unmount(disk) }
        let path = disk + "/state.json"
        let page = 4096
        try AtomicFile.write(Data(repeating: UInt8(ascii: "a"), count: page), to: path)
        try AtomicFile.write(Data(repeating: UInt8(ascii: "b"), count: page), to: path)
        // Fill the disk but for two pages: the new three-page content fits the swap, and then
        // writing the old file over with it (two more pages) cannot.
        try TinyDisk.fill(disk, leaving: 2)
        let new = Data(repeating: UInt8(ascii: "c"), count: 3 * page)
        try AtomicFile.write(new, to: path)
        #expect(FileManager.default.contents(atPath: path) == new)
        let swap = FileManager.default.contents(atPath: path + ".swap")
        #expect(swap == nil || swap == new, "the old content is not left behind")
    }
}

/// A child gets stdin, stdout and stderr only, whatever else this process has open.
@Suite struct SpawnedDescriptorTests {
    @Test func aDescriptorOpenWithoutCloseOnExecDoesNotReachAChild() throws {
        let leaky = open("/dev/null", O_RDONLY)  // as Foundation opens files: no O_CLOEXEC
        try #require(leaky > 2)
        defer { close(leaky) }
        let (child, _) = try ChildProcess.spawn("/bin/sh", ["-c", "test ! -e /proc/self/fd/\(leaky)"])
        #expect(child.exitStatus(timeout: .seconds(10)) == .exited(0), "descriptor \(leaky) reached the child")
    }
}
