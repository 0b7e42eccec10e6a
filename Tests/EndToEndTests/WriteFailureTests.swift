import DeviceProcesses
import Foundation
import TestSupport
import Testing

/// A run whose files cannot be written (a file-size limit, a full disk) ends as an error that
/// names the file and the system's error, never as a verdict read from a trace cut short.
@Suite(.tags(.device), .devicesWanted, .serialized, .timeLimit(.minutes(8)))
struct WriteFailureTests {
    static let scenarios = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Scenarios").path

    /// The file-size limit (2200 blocks of 512 bytes, as `sh` counts them) lets each trace
    /// have its first MiB but not its second: the hub's
    /// trace is cut short long before the slow cleanup. Without the limit the scenario fails
    /// (its cleanup takes about 300 ms against `within: 10ms`); with it, it must not pass.
    @Test func aTraceCutShortByAFileSizeLimitIsAnErrorNamingTheFile() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-efbig")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await run(
            "/bin/sh",
            [
                "-c", "ulimit -f 2200 && exec \"$0\" run \"$1\"", sdlabPath,
                Self.scenarios + "/slow-cleanup-after-a-long-trace.yaml",
            ],
            environment: environment(with: ["TMPDIR": folder]), timeout: .seconds(400))
        #expect(result.status == 3, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("trace/hub.jsonl: File too large (EFBIG)"), "\(result.stderr)")
        #expect(result.stderr.contains("the run cannot be judged"), "\(result.stderr)")
        #expect(!result.stdout.contains("1 of 1 scenarios passed"), "\(result.stdout)")
    }

    /// A disk too small for the device's traces: the run cannot start, and says which file and
    /// why (not "No such file or directory").
    @Test(.enabled(if: TinyDisk.canMount, Comment(rawValue: TinyDisk.whyNot)))
    func aFullDiskAtStartNamesTheFileAndTheError() async throws {
        let disk = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-enospc")
        try #require(TinyDisk.mount(512, at: disk), "cannot mount a tmpfs here")
        defer {
            TinyDisk.unmount(disk)
            try? FileManager.default.removeItem(atPath: disk)
        }
        let result = try await run(
            sdlabPath, ["run", RunCommandTests.library + "/side-by-side-check-in.yaml"],
            environment: environment(with: ["TMPDIR": disk]), timeout: .seconds(60))
        #expect(result.status == 3, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("No space left on device (ENOSPC)"), "\(result.stderr)")
        #expect(result.stderr.contains("trace"), "\(result.stderr)")
    }
}
