import Foundation
import Hub
import HubFiles
import SharedDevice
import Testing

/// The hub's state file: atomic saves, and refusal (never a silent reset) of a file it cannot trust.
@Suite struct StateFileTests {
    /// A folder of its own, removed afterwards.
    static func withFolder(_ body: (String) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sdlab-state-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try body(folder)
    }

    static func checkedOutState() throws -> HubState {
        var model = HubModel(policy: .init(passcode: true))
        try model.enroll(as: DirectoryUser(name: "stage", role: .staging))
        _ = try model.checkOut(as: DirectoryUser(name: "cou1"))
        return HubState(directory: ConsoleDirectory([(DirectoryUser(name: "cou1"), "cou1")]), model: model)
    }

    @Test func aSavedStateLoadsBackPrivateAndWithoutLeftovers() throws {
        try Self.withFolder { folder in
            let file = StateFile(path: folder + "/state.json")
            #expect(try file.load() == nil)
            let state = try Self.checkedOutState()
            try file.save(state)
            try file.save(state)
            #expect(try file.load() == state)
            let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            // The file and the sibling it is swapped with (see `AtomicFile`), both private.
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == [
                    "state.json", "state.json.swap",
                ])
            let swapMode =
                try FileManager.default.attributesOfItem(atPath: file.path + ".swap")[.posixPermissions] as? Int
            #expect(swapMode == 0o600)
        }
    }

    @Test(arguments: [
        ("{\"format\": \"sdlab-hub-state\", \"vers", "corrupt (not valid JSON"),
        ("", "corrupt (not valid JSON"),
        ("{\"name\": \"some other program\"}", "not a hub state file (format missing)"),
        ("{\"format\": \"other\", \"version\": 1}", "not a hub state file (format \"other\")"),
        ("{\"format\": \"sdlab-hub-state\", \"version\": 9}", "version 9; this hub reads version 1"),
        ("{\"format\": \"sdlab-hub-state\", \"version\": 1}", "corrupt (no .directory)"),
        ("[1, 2]", "corrupt ("),
    ])
    func anUntrustworthyFileIsRefusedWithTheReason(content: String, reason: String) throws {
        try Self.withFolder { folder in
            let path = folder + "/state.json"
            #expect(
                FileManager.default.createFile(
                    atPath: path, contents: Data(content.utf8), attributes: [.posixPermissions: 0o600]))
            let error = #expect(throws: StateFileError.self) { try StateFile(path: path).load() }
            #expect(error?.description.contains("refusing the hub state file \(path)") == true, "\(error!)")
            #expect(error?.description.contains(reason) == true, "\(error!)")
            // Refused, not reset: the file is as it was.
            let after = try String(contentsOfFile: path, encoding: .utf8)
            #expect(after == content)
        }
    }

    @Test func aFileOthersMayWriteIsRefused() throws {
        try Self.withFolder { folder in
            let file = StateFile(path: folder + "/state.json")
            try file.save(try Self.checkedOutState())
            try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: file.path)
            let error = #expect(throws: StateFileError.self) { try file.load() }
            #expect(error?.description.contains("others may write it (mode 666)") == true, "\(error!)")
        }
    }

    /// Only root can give a file away; elsewhere the test is reported as skipped.
    @Test(.enabled(if: getuid() == 0, "needs root to give the file to another uid"))
    func aFileOfAnotherUserIsRefused() throws {
        try Self.withFolder { folder in
            let file = StateFile(path: folder + "/state.json")
            try file.save(try Self.checkedOutState())
            #expect(chown(file.path, 4242, 4242) == 0)
            let error = #expect(throws: StateFileError.self) { try file.load() }
            #expect(error?.description.contains("belongs to uid 4242") == true, "\(error!)")
        }
    }

    struct SetupRead: Error {}

    @Test func aNewHubStartsFromItsSetupAndSavesItAtOnce() throws {
        try Self.withFolder { folder in
            let file = StateFile(path: folder + "/state.json")
            let setup = HubSetup(policy: .init(shared: false), online: false, directory: ConsoleDirectory([]))
            let state = try HubProcess.loadState(from: file) { setup }
            #expect(state.model == HubModel(policy: .init(shared: false), online: false))
            #expect(try file.load() == state)
            // Once there is a state, the setup is not read again.
            let again = try HubProcess.loadState(from: file) { throw SetupRead() }
            #expect(again == state)
        }
    }
}
