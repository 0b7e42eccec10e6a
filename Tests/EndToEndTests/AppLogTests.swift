import DeviceProcesses
import Foundation
import TestSupport
import Testing

/// An app's stderr log is capped: an app that floods it cannot fill the disk, and the log says
/// how much it dropped.
@Suite(.tags(.device), .devicesWanted, .timeLimit(.minutes(2)))
struct AppLogTests {
    @Test func aFloodedLogStopsAtItsCapAndSaysHowMuchWasDropped() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-flood")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // 3 MiB of stderr, then the app itself.
        try AppGroupTests.writeExecutable(
            folder + "/noisy.sh",
            """
            #!/bin/sh
            head -c 3145728 /dev/zero | tr '\\0' x >&2
            exec "\(AnsweringAppTests.appExecutable)" "$@"
            """)
        let file = try writeScenario(
            """
            apps:
              - {name: noisy, sdk: msal, background: true, executable: ./noisy.sh}
            steps:
              - launch: noisy
              - settle
            """, named: "noisy", in: folder)
        let result = try await run(
            sdlabPath, ["run", "--keep", file], environment: environment(with: ["TMPDIR": folder]),
            timeout: .seconds(60))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let runFolder = try #require(
            try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasPrefix("sdlab-run-") })
        let log = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(runFolder)/logs/app-noisy.log"))
        #expect(log.count < LogPump.defaultCap + 200, "\(log.count) bytes")
        let text = String(decoding: log.suffix(200), as: UTF8.self)
        #expect(text.contains("[sdlab: this log is capped at 1048576 bytes; what follows is dropped]"), "\(text)")
        #expect(text.contains("[sdlab: 2097152 bytes dropped past the cap]"), "\(text)")
    }
}
