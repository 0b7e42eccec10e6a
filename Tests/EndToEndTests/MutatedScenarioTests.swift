import DeviceProcesses
import Faults
import Foundation
import TestSupport
import Testing

/// Hostile scenario files: every file of the library, mutated, through `sdlab check` as a
/// process. Each answer is exit 0, or exit 2 with every problem at `FILE:LINE:COL`; never a
/// crash, a hang or another exit. The seed is printed; `SDLAB_MUTATION_SEED` replays one.
@Suite(.timeLimit(.minutes(5))) struct MutatedScenarioTests {
    /// Values a scenario could hold in the wrong place, or that test a bound.
    static let values = [
        "", "0", "-1", "1e308", "9223372036854775808", "99999999999999999999", "true", "null", "~",
        "[]", "{}", "[a, [b, [c]]]", "{times: 1000000, steps: [checkin]}", "all", "msal", "ws1",
        "cou1", "nobody", "5ms", "-5s", "1000000h", "'\\u0000'", "\"\\x01\"", "&a x", "*a", "!!binary AA==",
        "<<: {x: 1}", String(repeating: "x", count: 5000), "ünïcødé 🙂", "|\n  block", "? complex",
    ]

    /// One random edit of a line-based kind: YAML structure and scenario meaning both.
    static func mutate(_ lines: inout [String], using random: inout SeededGenerator) {
        guard !lines.isEmpty else {
            lines = [values.randomElement(using: &random)!]
            return
        }
        let index = Int.random(in: 0..<lines.count, using: &random)
        switch Int.random(in: 0..<8, using: &random) {
        case 0: lines.remove(at: index)
        case 1: lines.insert(lines[index], at: index)  // a duplicated line: duplicate keys, doubled steps
        case 2: lines.swapAt(index, Int.random(in: 0..<lines.count, using: &random))
        case 3:
            lines[index] =
                String(repeating: " ", count: Int.random(in: 0...6, using: &random))
                + lines[index].trimmingCharacters(in: .whitespaces)  // indentation
        case 4:  // a value replaced
            if let colon = lines[index].lastIndex(of: ":") {
                lines[index] = String(lines[index][...colon]) + " " + values.randomElement(using: &random)!
            }
        case 5:  // a byte dropped or repeated
            var bytes = Array(lines[index].utf8)
            if !bytes.isEmpty {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                if Bool.random(using: &random) { bytes.remove(at: at) } else { bytes.insert(bytes[at], at: at) }
            }
            lines[index] = String(decoding: bytes, as: UTF8.self)
        case 6:
            lines.insert(
                "  - " + ["post", "wait", "repeat", "expect", "hub", "crash", "launch", "write"]
                    .randomElement(using: &random)! + ": " + values.randomElement(using: &random)!, at: index)
        default: lines = Array(lines.prefix(index))  // cut short
        }
    }

    @Test func mutatedLibraryFilesAreCheckedOrRefusedWithALocation() async throws {
        let seed =
            ProcessInfo.processInfo.environment["SDLAB_MUTATION_SEED"].flatMap { UInt64($0) } ?? 0x5D1A_B5EE_D000_0150
        print("mutated scenarios: seed \(seed) (SDLAB_MUTATION_SEED to replay)")
        var random = SeededGenerator(state: seed)
        let library = RunCommandTests.library
        let originals = try FileManager.default.contentsOfDirectory(atPath: library).filter { $0.hasSuffix(".yaml") }
            .sorted()
            .map { try String(contentsOfFile: library + "/" + $0, encoding: .utf8) }
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-mutations")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var refused = 0
        for index in 0..<150 {
            var lines = originals[index % originals.count].components(separatedBy: "\n")
            for _ in 0..<Int.random(in: 1...4, using: &random) { Self.mutate(&lines, using: &random) }
            let path = folder + "/mutation-\(index).yaml"
            try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
            let result = try await run(sdlabPath, ["check", path], timeout: .seconds(10))
            #expect(
                result.status == 0 || result.status == 2,
                "seed \(seed), \(path): exit \(result.status)\n\(result.stderr)")
            guard result.status == 2 else { continue }
            refused += 1
            let problems = result.stderr.split(separator: "\n").filter { $0.hasPrefix(path + ":") }
            #expect(!problems.isEmpty, "seed \(seed), \(path): no located problem in\n\(result.stderr)")
            for problem in problems {
                let parts = problem.dropFirst(path.count + 1).split(separator: ":", maxSplits: 2)
                #expect(
                    parts.count == 3 && Int(parts[0]).map { $0 >= 1 } == true && Int(parts[1]).map { $0 >= 1 } == true,
                    "seed \(seed): \(problem)")
            }
        }
        #expect(refused > 50, "most mutations break something")
    }
}
