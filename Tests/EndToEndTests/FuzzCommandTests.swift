import DeviceProcesses
import Foundation
import TestSupport
import Testing

/// `sdlab fuzz` as a team runs it: seeded fault sequences on real devices, and a failure shrunk
/// to a scenario file that `sdlab run` reproduces.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct FuzzCommandTests {
    /// `SDLAB_FAULT_SEED=N swift test --filter FuzzCommandTests` tries other sequences.
    static let seed = ProcessInfo.processInfo.environment["SDLAB_FAULT_SEED"] ?? "0x5d1ab"

    @Test(.tags(.device), .devicesWanted) func sequencesOnRealDevicesHoldAndLeaveNothingRunning() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-fuzz-test")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await run(
            sdlabPath, ["fuzz", "--sequences", "4", "--actions", "30", "--seed", Self.seed, "--out", folder],
            environment: environment(with: ["TMPDIR": folder]), timeout: .seconds(300))
        #expect(result.status == 0, "seed \(Self.seed):\n\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").filter { $0.contains(": ✓ ") }.count == 4, "\(result.stdout)")
        #expect(
            result.stdout.contains("every invariant held") && result.stdout.contains("hub crashes"), "\(result.stdout)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty,
            "no scenario written, no run folder left")
        #expect(LiveProcesses.mentioning(folder).isEmpty)
    }

    /// About 3 s alone in a debug build; the bound leaves room for the suite's other tests.
    @Test func theDomainAloneRunsThousandsOfSequences() async throws {
        let result = try await run(
            sdlabPath, ["fuzz", "--domain-only", "--sequences", "1000", "--seed", Self.seed], timeout: .seconds(90))
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("every invariant held"))
    }

    /// A team's hook that cleans nothing: the domain cannot know what a hook does, the real
    /// device shows the leak; the sequence is shrunk to a file `sdlab run` fails on.
    @Test(.tags(.device), .devicesWanted) func aLeakingHookIsFoundShrunkAndReproduced() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-fuzz-hook")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let device = folder + "/device.yaml"
        try """
        name: A mail app whose hook forgets to clean up
        apps:
          - {name: mail, sdk: msal, background: true, cleanup: {hook: "true"}}
        """.write(toFile: device, atomically: true, encoding: .utf8)
        let result = try await run(
            sdlabPath,
            [
                "fuzz", "--scenario", device, "--sequences", "3", "--actions", "20",
                "--seed", "0x5d1ab", "--shrink-runs", "25", "--out", folder,
            ],
            environment: environment(with: ["TMPDIR": folder]), timeout: .seconds(400))
        #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("fuzz-") }
            .sorted()
        let file = folder + "/" + (try #require(written.first, "\(result.stdout)"))
        #expect(result.stdout.contains("✗ on the device") && result.stdout.contains("reproduce: sdlab run \(file)"))

        let text = try String(contentsOfFile: file, encoding: .utf8)
        let steps = text.split(separator: "\n").filter { $0.hasPrefix("  - ") && !$0.contains("settle") }.count
        #expect(steps <= 10, "shrunk to a few steps:\n\(text)")
        let rerun = try await run(
            sdlabPath, ["run", file], environment: environment(with: ["TMPDIR": folder]), timeout: .seconds(60))
        #expect(rerun.status == 1 && rerun.stdout.contains("leaks: expected 0"), "\(rerun.stdout)\n\(rerun.stderr)")
        #expect(LiveProcesses.mentioning(folder).isEmpty)
    }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Scenarios"
    ).path

    /// A fleet of nine and one app whose hook forgets the preferences and common data: with
    /// the focus on that app a few sequences find it; the reproduction is shrunk step by step,
    /// its failure printed at its place in the written file, and `sdlab run` fails on it.
    @Test(.tags(.device), .devicesWanted, .timeLimit(.minutes(2)))
    func aFocusFindsTheOneAppWhoseHookForgetsPartOfTheData() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-fuzz-focus")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await run(
            sdlabPath,
            [
                "fuzz", "--scenario", Self.fixtures + "/fuzz-fleet-and-a-hook-that-forgets.yaml",
                "--focus", "notes", "--sequences", "3", "--actions", "30", "--seed", "111",
                "--shrink-runs", "16", "--out", folder,
            ],
            environment: environment(with: ["TMPDIR": folder]), timeout: .seconds(100))
        #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("10 apps, focus on notes (80% of the app actions)"), "\(result.stdout)")
        #expect(
            result.stdout.contains("[3/3] seed 0x0000000000000071: ✗ on the device: notes.leaks: expected 0"),
            "\(result.stdout)")
        let file = folder + "/fuzz-0x0000000000000071.yaml"
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let steps = lines.drop { $0 != "steps:" }.filter { $0.hasPrefix("  - ") && !$0.contains("settle") }
        #expect(steps.count <= 10, "shrunk step by step, the fleet's steps and expectations gone:\n\(text)")
        #expect(!steps.contains { $0.contains("fleet") }, "\(text)")

        // `FILE:LINE:COL: what failed`, as printed and in the file's comments, at the failed field.
        let printed = try #require(
            result.stdout.split(separator: "\n").first { $0.hasPrefix("  \(file):") && $0.contains("notes.leaks") })
        let place = printed.dropFirst(2 + file.count + 1).split(separator: ":")
        let (line, column) = (try #require(Int(place[0])), try #require(Int(place[1])))
        #expect(lines[line - 1].dropFirst(column - 1).hasPrefix("leaks: 0"), "\(printed)\n\(text)")
        #expect(lines.contains { $0 == "#   " + printed.dropFirst(2) }, "the comments say the same:\n\(text)")

        let rerun = try await run(
            sdlabPath, ["run", file], environment: environment(with: ["TMPDIR": folder]), timeout: .seconds(30))
        #expect(
            rerun.status == 1 && rerun.stdout.contains("\(file):\(line):\(column): notes.leaks: expected 0"),
            "\(rerun.stdout)\n\(rerun.stderr)")
        #expect(LiveProcesses.mentioning(folder).isEmpty)
    }

    @Test func anAppToFocusOnThatTheScenarioLacksIsAUsageError() async throws {
        let result = try await run(
            sdlabPath,
            [
                "fuzz", "--scenario", Self.fixtures + "/fuzz-fleet-and-a-hook-that-forgets.yaml",
                "--focus", "notes,nots", "--domain-only",
            ])
        #expect(
            result.status == 2
                && result.stderr.contains(
                    "--focus: no app or fleet named nots; "
                        + "the scenario has fleet (fleet1 … fleet9), notes"),
            "\(result.stderr)")
        let weights = try await run(sdlabPath, ["fuzz", "--weight", "mail=3", "--weight", "mail=x", "--domain-only"])
        #expect(weights.status == 2 && weights.stderr.contains("--weight: mail=x is not APP=N"), "\(weights.stderr)")
    }

    @Test func aSeedThatIsNotANumberIsAUsageError() async throws {
        let result = try await run(sdlabPath, ["fuzz", "--seed", "banana"])
        #expect(result.status == 2 && result.stderr.contains("--seed: banana is not a number"), "\(result.stderr)")
    }

    /// A count past its bound is refused before anything runs, not taken for hours of work.
    @Test func aHugeCountIsAUsageError() async throws {
        let result = try await run(sdlabPath, ["fuzz", "--actions", "1000000000"])
        #expect(result.status == 2 && result.stderr.contains("--actions 1 to 10000"), "\(result.stderr)")
        let repeated = try await run(sdlabPath, ["run", "--repeat", "100000", "Scenarios"])
        #expect(repeated.status == 2 && repeated.stderr.contains("--repeat is 1 to 1000"), "\(repeated.stderr)")
    }

    /// A scenario file past 1 MiB is refused unread, naming its size.
    @Test func aHugeScenarioFileIsRefused() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-huge")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/huge.yaml"
        try Data(repeating: UInt8(ascii: "#"), count: 2 << 20).write(to: URL(fileURLWithPath: file))
        let result = try await run(sdlabPath, ["check", file])
        #expect(result.status == 2)
        #expect(result.stderr.contains("it is 2097152 bytes, over the limit of 1048576"), "\(result.stderr)")
    }
}
