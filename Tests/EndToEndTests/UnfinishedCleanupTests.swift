import DeviceLaunch
import DeviceProcesses
import Foundation
import SharedDevice
import TestSupport
import Testing

/// A cleanup that cannot finish is never given up on (Docs/behaviour.md §8): a full disk does
/// not keep it from deleting, and one that fails is run again at every check and at the next
/// launch until it ends clean.
@Suite(.tags(.device), .devicesWanted, .serialized, .timeLimit(.minutes(2)))
struct UnfinishedCleanupTests {
    /// Before: the journal could not be written, so nothing was deleted, and the app moved on
    /// to user none with the records still on disk and readable.
    @Test(.enabled(if: TinyDisk.canMount, Comment(rawValue: TinyDisk.whyNot)))
    func aFullDiskDoesNotKeepTheCleanupFromDeleting() async throws {
        try await AppDevice.with { lab in
            let container = RunFolder.container(of: "notes", in: lab.directory)
            try #require(TinyDisk.mount(512, at: container), "cannot mount a tmpfs here")
            defer { TinyDisk.unmount(container) }
            try await lab.connection.checkOut("cou1")
            try await lab.launch(AppSpec(name: "notes", sdk: .msal, backgroundMode: true))
            let notes = lab.app("notes")
            try await notes.write(.sensitive, count: 5)
            try await notes.write(.plain, count: 5)
            try TinyDisk.fill(container)

            try await lab.hub(BuiltInAppProcessTests.hub1, "CheckIn")
            try await notes.settle()
            #expect(lab.readable(in: "notes").isEmpty, "the previous user's records were deleted")
            let events = try lab.events("app-notes.jsonl")
            #expect(events.contains("cleanup-finished") && !events.contains("cleanup-failed"), "\(events)")
            #expect(try await notes.snapshot().user == nil)
        }
    }

    /// A hook that fails until a file exists: the failed job stays unfinished and runs again
    /// at the next check; once it succeeds, nothing is run again.
    static let failsUntilAllowed = CleanupPolicy.hook(
        command: "test -e \"$SDLAB_CONTAINER/../allowed\" && rm -rf \"$SDLAB_CONTAINER/documents/$SDLAB_PREVIOUS_USER\""
    )

    @Test func aFailedCleanupIsRunAgainAtTheNextCheckUntilClean() async throws {
        try await AppDevice.with { lab in
            try await lab.connection.checkOut("cou1")
            try await lab.launch(
                AppSpec(name: "notes", sdk: .msal, backgroundMode: true, cleanup: Self.failsUntilAllowed))
            let notes = lab.app("notes")
            try await notes.write(.plain, count: 3)
            try await lab.hub(BuiltInAppProcessTests.hub1, "CheckIn")
            try await notes.settle()
            #expect(lab.readable(in: "notes").count == 3)
            #expect(try lab.events("app-notes.jsonl").filter { $0 == "cleanup-failed" }.count == 1)

            try await notes.foreground()  // a check: the hook still fails
            #expect(
                try lab.events("app-notes.jsonl").suffix(4) == [
                    "cleanup-retried", "cleanup-started", "cleanup-failed", "check-finished",
                ])
            _ = FileManager.default.createFile(
                atPath: RunFolder.containers(in: lab.directory) + "/allowed", contents: nil)
            try await notes.background()
            try await notes.foreground()
            #expect(lab.readable(in: "notes").isEmpty)
            let events = try lab.events("app-notes.jsonl")
            #expect(events.filter { $0 == "cleanup-finished" }.count == 1)
            try await notes.background()
            try await notes.foreground()
            #expect(
                try lab.events("app-notes.jsonl").filter { $0 == "cleanup-retried" }.count == 2,
                "not after it ended clean")
        }
    }

    @Test func aFailedCleanupIsRunAgainAtTheNextLaunchBeforeAnyCheck() async throws {
        try await AppDevice.with { lab in
            try await lab.connection.checkOut("cou1")
            let spec = AppSpec(name: "notes", sdk: .msal, backgroundMode: true, cleanup: Self.failsUntilAllowed)
            let first = try await lab.launch(spec)
            try await lab.app("notes").write(.plain, count: 3)
            try await lab.hub(BuiltInAppProcessTests.hub1, "CheckIn")
            try await lab.app("notes").settle()
            first.crash()
            _ = FileManager.default.createFile(
                atPath: RunFolder.containers(in: lab.directory) + "/allowed", contents: nil)

            try await lab.launch(spec)
            #expect(lab.readable(in: "notes").isEmpty)
            let events = try lab.events("app-notes.jsonl")
            let relaunch = try #require(events.lastIndex(of: "launched"))
            #expect(
                Array(events[relaunch...].prefix(4)) == [
                    "launched", "cleanup-resumed", "cleanup-started", "cleanup-finished",
                ])
        }
    }
}
