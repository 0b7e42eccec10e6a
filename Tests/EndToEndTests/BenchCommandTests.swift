import DeviceProcesses
import Foundation
import TestSupport
import Testing

/// `sdlab bench` end to end: real fleets and the built C floors on a real bus, a sweep that
/// finishes with nothing lost and nothing left running, and clear refusals and failures.
@Suite(.serialized) struct BenchCommandTests {
    @Test(.tags(.device), .devicesWanted, .timeLimit(.minutes(3)))
    func aSmallSweepIsHeldAgainstBothFloorsAndLeavesNothingRunning() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-bench-test")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (json, plot) = (folder + "/bench.json", folder + "/bench.svg")
        let output = try await run(
            sdlabPath,
            [
                "bench", "--apps", "1,3", "--signals", "20", "--gap", "5ms", "--changes", "2",
                "--records", "10", "--repeat", "2", "--json", json, "--plot", plot, "--folder", folder,
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
            #expect(((run["cpu_us_per_post"] as? [String: Double])?["per_app"] ?? 0) > 0)
            let floors = try #require(run["floors"] as? [String: [String: Any]], "\(run)")
            for (name, floor) in floors {
                #expect(floor["lost"] as? Int == 0, "\(name): \(floor)")
                #expect(((floor["per_rx_ms"] as? [String: Double])?["p50"] ?? 0) > 0, "\(name)")
                #expect(((floor["cpu_us_per_post"] as? [String: Double])?["per_receiver"] ?? 0) > 0, "\(name)")
            }
            #expect(floors["recheck"]?["unchecked"] as? Int == 0 && floors["recheck"]?["check_ms"] != nil)
            let ratio = try #require(run["ratio"] as? [String: [String: Double]])
            #expect(ratio.keys.sorted() == ["plain", "recheck"] && (ratio["recheck"]?["delivery_p50"] ?? 0) > 0)
            #expect(run["repeats"] as? Int == 2)
            let range = try #require(run["range"] as? [String: Any])
            let p50 = try #require((range["delivery_ms"] as? [String: [Double]])?["p50"])
            #expect(p50.count == 2 && p50[0] <= p50[1], "\(p50)")
        }
        #expect(output.stdout.contains("median (min–max) of 2"), "the table at the end: \(output.stdout)")
        #expect(output.stdout.contains("p50 ratio to C recheck / plain"))
        #expect(try String(contentsOfFile: plot, encoding: .utf8).hasPrefix("<svg"))
        #expect(
            RunCommandTests.processes(mentioning: folder).isEmpty, "\(RunCommandTests.processes(mentioning: folder))")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("sdlab-") }
        #expect(left.isEmpty, "run folders are removed without --keep: \(left)")
    }

    @Test func badInputIsRefusedWithWhatIsExpected() async throws {
        let zero = try await run(sdlabPath, ["bench", "--apps", "0,10"])
        #expect(zero.status == 2 && zero.stderr.contains("--apps takes fleet sizes from 1 to 2000"), "\(zero.stderr)")
        let gap = try await run(sdlabPath, ["bench", "--gap", "soon"])
        #expect(gap.status == 2, "\(gap.stderr)")
        let repeats = try await run(sdlabPath, ["bench", "--repeat", "0"])
        #expect(repeats.status == 2 && repeats.stderr.contains("--repeat is 1 to 100"), "\(repeats.stderr)")
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-bench-test")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let baseline = try await run(
            sdlabPath, ["bench", "--apps", "1", "--baseline", folder],
            environment: environment(with: ["TMPDIR": folder]))
        #expect(baseline.status == 3 && baseline.stderr.contains("is not the D-Bus baseline"), "\(baseline.stderr)")
    }

    /// An sdlab without the floor beside it (a copy alone in a folder) stops before any fleet.
    @Test func aFloorThatIsNotBuiltIsAnEnvironmentFailure() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-bench-test")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Copied by another process: a copy's descriptor held open here could leak into a child
        // some other test spawns meanwhile, and the copy would not start ("Text file busy").
        let copy = try await run("/bin/cp", [sdlabPath, folder + "/sdlab"])
        try #require(copy.status == 0, "\(copy.stderr)")
        let output = try await run(folder + "/sdlab", ["bench", "--apps", "1"])
        #expect(output.status == 3, "\(output.stderr)")
        #expect(
            output.stderr.contains(
                "the C floor is not built: no FloorEmitter, FloorReceiver, FloorBroker in \(folder)"),
            "\(output.stderr)")
    }

    /// `--baseline DIR` runs `DIR/run.sh fanout N M GAP_US` twice per fleet, RECHECK unset then
    /// RECHECK=1; a run.sh that fails stops the bench with what it said.
    @Test(.tags(.device), .devicesWanted, .timeLimit(.minutes(3)))
    func anExternalFloorRunsPlainThenWithRecheckAndItsFailureIsReported() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-bench-test")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let floor = folder + "/floor"
        try FileManager.default.createDirectory(atPath: floor, withIntermediateDirectories: true)
        func script(_ name: String, _ body: String) throws {
            try ("#!/bin/bash\n" + body).write(toFile: floor + "/" + name, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: floor + "/" + name)
        }
        try script("build.sh", "exit 0\n")
        // The plain floor's receivers take 0.1 ms, the recheck floor's 0.2 ms and their checks 0.3 ms.
        try script(
            "run.sh",
            """
            [ "$1 $2 $3 $4" = "fanout 1 5 5000" ] || { echo "unexpected arguments: $*"; exit 2; }
            [ -e "$(dirname "$0")/fail" ] && [ "${RECHECK:-}" = 1 ] && { echo "the broker is gone"; exit 1; }
            p=100; [ "${RECHECK:-}" = 1 ] && p=200
            echo "=== fanout N=1 M=5 gap_us=5000 warmup=10 recheck=${RECHECK:-0}"
            echo "per_rx_us p50=$p p90=$p p99=$p max=$p"
            echo "last_rx_us p50=$p p90=$p p99=$p max=$p"
            [ "${RECHECK:-}" = 1 ] && echo "per_check_us p50=300 p90=300 p99=300 max=300" \
                && echo "last_check_us p50=300 p90=300 p99=300 max=300"
            echo "rss_kb receiver_Pss=400"
            echo "TABLE | 1 | 5 | 5000 | 0 |"
            exit 0

            """)
        let json = folder + "/bench.json"
        let arguments = [
            "bench", "--apps", "1", "--signals", "5", "--changes", "0", "--records", "1", "--baseline", floor,
            "--folder", folder, "--json", json,
        ]
        let output = try await run(
            sdlabPath, arguments, environment: environment(with: ["TMPDIR": folder]), timeout: .seconds(50))
        #expect(output.status == 0, "\(output.stderr)")
        let object =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any]
        let measured = try #require((object?["runs"] as? [[String: Any]])?.first)
        let floors = try #require(measured["floors"] as? [String: [String: Any]])
        #expect((floors["plain"]?["per_rx_ms"] as? [String: Double])?["p50"] == 0.1, "\(floors)")
        #expect((floors["recheck"]?["per_rx_ms"] as? [String: Double])?["p50"] == 0.2, "\(floors)")
        #expect((floors["recheck"]?["check_ms"] as? [String: Double])?["p50"] == 0.3, "\(floors)")

        try "".write(toFile: floor + "/fail", atomically: true, encoding: .utf8)
        let failed = try await run(
            sdlabPath, arguments, environment: environment(with: ["TMPDIR": folder]), timeout: .seconds(50))
        #expect(failed.status == 3, "\(failed.stderr)")
        #expect(
            failed.stderr.contains("the baseline fanout of 1 with RECHECK=1 failed (exit code 1)")
                && failed.stderr.contains("the broker is gone"), "\(failed.stderr)")
        #expect(
            RunCommandTests.processes(mentioning: folder).isEmpty, "\(RunCommandTests.processes(mentioning: folder))")
    }
}
