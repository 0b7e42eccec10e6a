import Foundation
import LeakScan
import SharedDevice
import Testing

/// A container folder of a test's own, removed with it.
final class ScratchContainer {
    let root: String

    init() throws {
        root = FileManager.default.temporaryDirectory.path + "/leakscan-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// Writes `bytes` at `place` inside the container, making its folders.
    func write(_ bytes: [UInt8], to place: String) throws {
        let url = URL(fileURLWithPath: root + "/" + place)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }

    func path(_ place: String) -> String { root + "/" + place }

    func scan() -> LeakScanner.Scan { LeakScanner(container: root, app: "notes").scan() }

    /// What the scan read, as `place via canary` lines, sorted.
    func sightings() -> [String] { scan().map { "\($0.place) [\($0.via)] \($0.canary)" }.sorted() }
}

/// A canary of the notes app.
func canary(_ number: Int, _ kind: RecordKind = .plain, user: String = "cou1") -> Canary {
    Canary(user: user, app: "notes", kind: kind, number: number)
}

/// A stored value as an app writes one: the canary, then some payload.
func record(_ canary: Canary) -> [UInt8] { Array("\(canary) record of \(canary.user) in notes\n".utf8) }

/// Bytes that stand for anything else in a file.
func randomBytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255) } }

/// Runs a program to its end, its standard output into `output` if given; fails the test on a
/// non-zero exit.
func run(_ arguments: [String], output: String? = nil) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    if let output {
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: output)
    }
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "\(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
}

/// Runs a Python 3 script with `arguments` (`sys.argv[1:]`).
func python(_ script: String, _ arguments: [String] = []) throws {
    try run(["python3", "-c", script] + arguments)
}

/// A file's bytes.
func contents(of path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }
