import DeviceProcesses
import Foundation
import Testing

/// What a hook of a run folder started is found by its container exactly: never a process of
/// a folder whose name merely begins the same, nor of a folder inside it.
@Suite struct LiveProcessesTests {
    @Test func hooksAreFoundByTheirRunFolderExactly() throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-live")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let containers = [
            "mine": folder + "/containers/mail", "longer name": folder + "2/containers/mail",
            "inside": folder + "/sub/containers/mail",
        ]
        var started: [String: ChildProcess] = [:]
        defer { for process in started.values { process.stop(grace: .seconds(1)) } }
        for (name, container) in containers {
            let environment = ProcessInfo.processInfo.environment.merging(["SDLAB_CONTAINER": container]) { $1 }
            started[name] = try ChildProcess.spawn(
                "/bin/sleep", ["30"], stdout: .null, stderr: .null, environment: environment
            ).0
        }
        let found = Set(LiveProcesses.startedByHooks(in: folder))
        #expect(found == [started["mine"]!.pid])
    }
}
