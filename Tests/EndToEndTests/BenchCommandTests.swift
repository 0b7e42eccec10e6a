import DeviceProcesses
import Foundation
import TestSupport
import Testing

/// `sdlab bench` end to end: real fleets on a real bus, a sweep that finishes with nothing
/// lost and nothing left running, and clear refusals of bad input.
@Suite(.serialized) struct BenchCommandTests {
    @Test(.timeLimit(.minutes(3))) func aSmallSweepMeasuresEveryDeliveryAndLeavesNothingRunning() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-bench-test")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (json, plot) = (folder + "/bench.json", folder + "/bench.svg")
        let output = try await run(
            sdlabPath,
            [
                "bench", "--apps", "1,3", "--signals", "20", "--gap", "5ms", "--changes", "2",
                "--records", "10", "--json", json, "--plot", plot, "--folder", folder,
            ],
            environment: environment(with: ["TMPDIR": folder]), timeout: .seconds(150))
        #expect(output.status == 0, "\(output.stderr)")
        let object =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any]
        let runs = try #require(object?["runs"] as? [[String: Any]])
        #expect(runs.map { $0["apps"] as? Int } == [1, 3])
        for run in runs {
            #expect(run["lost"] as? Int == 0 && run["uncleaned"] as? Int == 0, "\(run)")
            #expect(((run["delivery_ms"] as? [String: Double])?["p50"] ?? 0) > 0)
            #expect(
                ((run["exposure_ms"] as? [String: Double])?["p50"] ?? 0) > 0,
                "every check-in was cleaned up after its commit")
            #expect((run["launch_s"] as? Double ?? 0) > 0 && (run["pss_kb_per_app"] as? Int ?? 0) > 0)
            #expect(run["baseline"] == nil, "no baseline was asked for")
        }
        #expect(output.stdout.contains("apps  delivery p50/p99"), "the table at the end")
        #expect(try String(contentsOfFile: plot, encoding: .utf8).hasPrefix("<svg"))
        #expect(
            RunCommandTests.processes(mentioning: folder).isEmpty, "\(RunCommandTests.processes(mentioning: folder))")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("sdlab-bench-") }
        #expect(left.isEmpty, "run folders are removed without --keep: \(left)")
    }

    @Test func badInputIsRefusedWithWhatIsExpected() async throws {
        let zero = try await run(sdlabPath, ["bench", "--apps", "0,10"])
        #expect(zero.status == 2 && zero.stderr.contains("--apps takes fleet sizes from 1 to 2000"), "\(zero.stderr)")
        let gap = try await run(sdlabPath, ["bench", "--gap", "soon"])
        #expect(gap.status == 2, "\(gap.stderr)")
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-bench-test")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let baseline = try await run(
            sdlabPath, ["bench", "--apps", "1", "--baseline", folder],
            environment: environment(with: ["TMPDIR": folder]))
        #expect(baseline.status == 3 && baseline.stderr.contains("is not the D-Bus baseline"), "\(baseline.stderr)")
    }
}
