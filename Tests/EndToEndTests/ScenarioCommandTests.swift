import DeviceLaunch
import DeviceProcesses
import Foundation
import TestSupport
import Testing

/// `sdlab check` and `device up --scenario` as a user runs them.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct ScenarioCommandTests {
    static func write(_ text: String, as name: String, in folder: String) throws -> String {
        let path = folder + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static let valid = """
        name: A worker checks out
        users:
          - {name: lead, role: staging}
          - {name: ana, password: s3cret}
        apps:
          - {name: mail, sdk: msal, background: true}
        steps:
          - enroll: lead
          - checkout: {user: ana, password: s3cret}
          - launch: mail
        """

    @Test func checkAcceptsAValidFileAndNamesEveryProblemOfAnInvalidOne() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-check")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let good = try Self.write(Self.valid, as: "good.yaml", in: folder)
        let ok = try await run(sdlabPath, ["check", good])
        #expect(ok.status == 0 && ok.stdout.contains("A worker checks out"), "\(ok.stderr)")

        let bad = try Self.write(
            Self.valid.replacingOccurrences(of: "background: true", with: "backgrund: true")
                .replacingOccurrences(of: "launch: mail", with: "launch: mial"), as: "bad.yaml", in: folder)
        let refused = try await run(sdlabPath, ["check", folder])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("\(bad):6:29: unknown key backgrund"), "\(refused.stderr)")
        #expect(refused.stderr.contains("\(bad):10:13: "), "\(refused.stderr)")
        #expect(refused.stdout.contains("good.yaml"), "the valid file in the folder is still checked")

        let empty = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-check-empty")
        defer { try? FileManager.default.removeItem(atPath: empty) }
        #expect(try await run(sdlabPath, ["check", empty]).status == 2)
    }

    @Test(.tags(.device), .devicesWanted) func deviceUpTakesTheScenariosUsers() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-up-scenario")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let scenario = try Self.write(Self.valid, as: "worker.yaml", in: folder)
        let up = try await run(
            sdlabPath, ["device", "up", "--detach", "--dir", folder + "/dev", "--scenario", scenario])
        try #require(up.status == 0, "\(up.stderr)")
        defer { _ = RunningDevice.stopRecorded(in: folder + "/dev") }
        let address = try #require(DetachedDevice.value(of: "DBUS_SESSION_BUS_ADDRESS", in: up.stdout))
        try await withBus(address) { bus in
            try await bus.hub("dev.sdlab.Hub1", "Enroll", ["lead", "lead"])
            try await bus.hub("dev.sdlab.Hub1", "CheckOut", ["ana", "s3cret"])
            #expect(try await bus.session().user == "ana")
        }
        let invalid = try Self.write("name: [", as: "broken.yaml", in: folder)
        let refused = try await run(
            sdlabPath, ["device", "up", "--detach", "--dir", folder + "/dev2", "--scenario", invalid])
        #expect(
            refused.status == 2
                && refused.stderr.contains("broken.yaml:2:1: the file ends inside [ … ] or { … }: a ] or } is missing"),
            "\(refused.stderr)")
    }

    /// The current folder is not the scenario's: its programs are found from its own folder.
    @Test func checkFindsProgramsFromTheScenariosFolder() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-check-paths")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = FileManager.default.createFile(
            atPath: folder + "/clean.sh", contents: Data("#!/bin/sh\n".utf8),
            attributes: [.posixPermissions: 0o755])
        let good = try Self.write(
            "apps:\n  - {name: mail, sdk: msal, cleanup: {hook: ./clean.sh --all, keeps: [common]}}\n",
            as: "good.yaml", in: folder)
        let ok = try await run(sdlabPath, ["check", good])
        #expect(ok.status == 0, "\(ok.stderr)")

        let bad = try Self.write(
            "apps:\n  - {name: notes, sdk: msal, executable: ./notes}\nsteps:\n  - wait: 1500\n",
            as: "bad.yaml", in: folder)
        let refused = try await run(sdlabPath, ["check", bad])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("\(bad):2:42: executable: no file at \(folder)/notes"), "\(refused.stderr)")
        #expect(refused.stderr.contains("\(bad):4:11: wait: 1500 needs a unit (1500ms or 1500s?)"), "\(refused.stderr)")
    }
}
