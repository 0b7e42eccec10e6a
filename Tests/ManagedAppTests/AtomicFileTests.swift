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
