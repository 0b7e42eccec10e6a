import DeviceProcesses
import Foundation
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
