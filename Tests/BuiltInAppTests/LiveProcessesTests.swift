import DeviceProcesses
import Foundation
import TestSupport
import Testing

/// What a hook of a run folder started is found by its container exactly: never a process of
/// a folder whose name merely begins the same, nor of a folder inside it.
@Suite struct LiveProcessesTests {
    @Test func hooksAreFoundByTheirRunFolderExactly() async throws {
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
        try await Self.untilEach(of: Array(started.values), runs: "/bin/sleep")
        let found = Set(LiveProcesses.startedByHooks(in: folder))
        #expect(found == [started["mine"]!.pid])
    }

    /// What the guard of a killed run ends: a process with an argument that is the folder, a
    /// path in it or a bus address in it; never one of a folder whose path merely begins or
    /// ends the same.
    @Test func processesOfARunFolderAreFoundByItsExactPath() async throws {
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
        try await Self.untilEach(of: Array(started.values), runs: "/bin/sh")
        let found = Set(LiveProcesses.ofRunFolder(folder))
        let mine = Set(["folder", "path in it", "address"].map { started[$0]!.pid })
        #expect(found.isSuperset(of: mine))
        // Each shell forks its `sleep`, which carries the shell's arguments until it execs: a
        // process of the folder too when the shell is, and never one when the shell is not.
        #expect(found.allSatisfy { mine.contains($0) || Self.parent(of: $0).map(mine.contains) == true }, "\(found)")
    }

    /// Waits until each process runs `program`: one spawned a moment ago may still have its
    /// parent's arguments and environment.
    static func untilEach(of processes: [ChildProcess], runs program: String) async throws {
        try await eventually("every process runs \(program)") {
            processes.allSatisfy { process in
                let command = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(process.pid)/cmdline"))) ?? Data()
                return command.starts(with: Data((program + "\0").utf8))
            }
        }
    }

    /// The parent process of `pid` (from /proc/PID/stat), or nil once it has ended.
    static func parent(of pid: Int32) -> Int32? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }
}
