import DeviceProcesses
import Foundation
import TestSupport
import Testing

/// A cleanup that hides the records 15,000 folders deep (a recursive walk died of SIGSEGV
/// there, with no summary, and left the records in the temporary folder): the run ends with its
/// summary and fails naming the file.
@Suite(.tags(.device), .devicesWanted, .serialized, .timeLimit(.minutes(5)))
struct DeepFolderRunTests {
    @Test func recordsHiddenFifteenThousandFoldersDeepAreNamed() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-deep")
        defer { try? TreeRemoval.remove(folder) }
        let runs = folder + "/runs"  // the runs' TMPDIR
        try DevicePaths.prepareDirectory(runs)
        let hidden = try writeScenario(Self.scenario(hook: "mv cou1 \"deep/$steps\""), named: "hidden", in: folder)
        let started = ContinuousClock.now
        let result = try await run(
            sdlabPath, ["run", hidden], environment: environment(with: ["TMPDIR": runs]), timeout: .seconds(240))
        print("a run with a 15,000-deep folder took \(ContinuousClock.now - started)")
        let output = result.stdout + result.stderr
        #expect(result.status == 1, "\(output.suffix(3000))")
        #expect(output.contains("0 of 1 scenarios passed"), "\(output.suffix(3000))")
        // The leak names the file at the bottom: 15,031 folders down.
        let bottom = "documents/deep/" + String(repeating: "d/", count: 500)
        #expect(output.contains("mail: leaks 1: cou1 plain ×1 (\(bottom)"), "\(output.suffix(3000))")
        #expect(output.contains("/cou1/plain-1-1.txt)"), "\(output.suffix(3000))")
        // The failed run's folder is kept, and said to be.
        let kept = output.split(separator: "\n").filter { $0.contains("run folder kept: ") }
        let left = ((try? FileManager.default.contentsOfDirectory(atPath: runs)) ?? []).map { runs + "/" + $0 }
        #expect(left.count == 1 && kept.count == 1 && kept.first?.hasSuffix(left[0]) == true, "\(left) \(kept)")
    }

    /// A scenario whose cleanup hook runs `hook` in the mail app's documents, then leaves a folder
    /// 15,031 deep, `deep`, holding whatever `hook` moved there (`nestingHook`).
    static func scenario(hook: String) -> String {
        hookedMailScenario(
            hook: nestingHook(hook, rounds: 29),
            then: [
                "# Not settle: the app's own scan of its container after the cleanup opens each folder",
                "# under Landlock, which walks up to the container at every open, so it takes minutes.",
                "- wait: 15s", "- expect:", "    mail: {leaks: 0}",
            ])
    }
}
