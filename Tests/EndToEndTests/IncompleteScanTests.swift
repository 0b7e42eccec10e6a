import DeviceProcesses
import Foundation
import TestSupport
import Testing

/// A scan that could not read everything proves nothing: the run ends as an error naming the
/// file and the reason (exit 3), unless the scenario declares the file out of scope.
@Suite(.tags(.device), .devicesWanted, .serialized, .timeLimit(.minutes(2)))
struct IncompleteScanTests {
    @Test func aFileTheScannerCannotReadEndsTheRunWithExitThree() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-incomplete")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await run(
            sdlabPath, ["run", RunCommandTests.scenarios + "/incomplete-scan-hidden-zip.yaml"],
            environment: environment(with: ["TMPDIR": folder]))
        let output = result.stdout + result.stderr
        #expect(result.status == 3, "\(output)")
        #expect(
            output.contains("documents/cou1.zip")
                && output.contains(
                    "zip entry plain-1-2.txt cannot be read: Unsupported ZIP compression method (99: aes)"),
            "\(output)")
        #expect(!output.contains("nothing of another user readable"), "\(output)")
    }

    @Test func aFileDeclaredOutOfScopeIsLeftUnreadAndListed() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-out-of-scope")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await run(
            sdlabPath, ["run", RunCommandTests.scenarios + "/incomplete-scan-out-of-scope.yaml"],
            environment: environment(with: ["TMPDIR": folder]))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("out of scope, not read: mail/documents/cou1.zip"), "\(result.stdout)")
        // The app's own scans leave it out too: its cleanup closes its window.
        #expect(!result.stdout.contains("cleanup failed"), "\(result.stdout)")
        #expect(!result.stdout.contains("open (another user's data still readable)"), "\(result.stdout)")
    }
}
