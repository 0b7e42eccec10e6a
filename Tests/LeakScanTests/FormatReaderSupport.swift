import Foundation
import SharedDevice

@testable import LeakScan

extension FormatReading {
    /// The labels of the values whose bytes hold `canary` as UTF-8 text, sorted.
    func labels(holding canary: Canary) -> [String] {
        let text = Array("\(canary)".utf8)
        return values.filter { value in
            value.bytes.indices.contains { value.bytes[$0...].starts(with: text) }
        }.map(\.label).sorted()
    }

    /// The values labelled `label`, as UTF-8 text.
    func texts(_ label: String) -> [String] {
        values.filter { $0.label == label }.map { String(decoding: $0.bytes, as: UTF8.self) }
    }
}

/// What `read` makes of `bytes`.
func reading(
    _ bytes: [UInt8], limit: Int = 1 << 20, with read: (UnsafeBufferPointer<UInt8>, Int) -> FormatReading?
) -> FormatReading? {
    bytes.withUnsafeBufferPointer { read($0, limit) }
}

/// The shared libraries a program names in its dynamic section (`readelf -d`): what the dynamic
/// loader loads into it before it starts.
func neededLibraries(of program: String) throws -> [String] {
    let output = FileManager.default.temporaryDirectory.path + "/needed-" + UUID().uuidString
    defer { try? FileManager.default.removeItem(atPath: output) }
    try run(["readelf", "-d", program], output: output)
    let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
    return lines.filter { $0.contains("(NEEDED)") }.compactMap { line in
        line.split(separator: "[").last?.split(separator: "]").first.map(String.init)
    }
}

/// The built program `name`, beside the running tests.
func builtProgram(_ name: String) -> String {
    URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent(name).path
}
