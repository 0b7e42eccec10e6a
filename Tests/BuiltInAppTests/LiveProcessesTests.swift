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

    /// What the guard of a killed run ends: a process with an argument that is the folder, a
    /// path in it or a bus address in it; never one of a folder whose path merely begins or
    /// ends the same.
    @Test func processesOfARunFolderAreFoundByItsExactPath() throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-own")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let arguments = [
            "folder": folder, "path in it": folder + "/hub-state.json", "address": "unix:path=\(folder)/bus,guid=1",
            "longer name": folder + "2/hub-state.json", "ends the same": "/elsewhere" + folder + "/bus",
        ]
        var started: [String: ChildProcess] = [:]
        defer { for process in started.values { process.stop(grace: .seconds(1)) } }
        for (name, argument) in arguments {
            started[name] = try ChildProcess.spawn(
                "/bin/sh", ["-c", "sleep 30; true", "sh", argument], stdout: .null, stderr: .null
            ).0
        }
        let found = Set(LiveProcesses.ofRunFolder(folder))
        #expect(found == Set(["folder", "path in it", "address"].map { started[$0]!.pid }))
    }
}
