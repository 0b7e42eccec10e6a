import Foundation
import Scenario
import Testing

/// Executables and hook programs are found from the scenario file's folder, whatever the
/// current folder; a scenario read from disk names programs that can run.
@Suite struct PathTests {
    static func app(_ fields: String, file: String = "/lab/scenarios/s.yaml") throws -> AppEntry? {
        try Scenario.parse("apps:\n  - {name: mail, sdk: msal, \(fields)}\n", file: file).apps.first
    }

    @Test(arguments: [
        ("bin/app", "/lab/scenarios/bin/app"),
        ("./bin/app", "/lab/scenarios/bin/app"),
        ("../.build/debug/app", "/lab/.build/debug/app"),
        ("/opt/team/app", "/opt/team/app"),
    ])
    func anExecutableIsMadeAbsolute(written: String, path: String) throws {
        #expect(try Self.app("executable: \(written)")?.executable == path)
    }

    @Test func aScenarioNamedRelativelyStartsAtTheCurrentFolder() throws {
        let app = try Self.app("executable: app", file: "lab/s.yaml")
        #expect(app?.executable == FileManager.default.currentDirectoryPath + "/lab/app")
    }

    @Test(arguments: [
        ("./clean.sh --all", "/lab/scenarios/clean.sh --all"),
        ("tools/clean.sh", "/lab/scenarios/tools/clean.sh"),
        ("  ../clean.sh; echo done", "  /lab/clean.sh; echo done"),
        // Not a relative program path: left to the shell as written.
        ("/usr/bin/env rm x", "/usr/bin/env rm x"),
        ("rm -rf \"$SDLAB_CONTAINER/docs\"", "rm -rf \"$SDLAB_CONTAINER/docs\""),
        ("sh ./clean.sh", "sh ./clean.sh"),
        ("$HOME/clean.sh", "$HOME/clean.sh"),
        ("~/clean.sh", "~/clean.sh"),
        ("VAR=a/b ./clean.sh", "VAR=a/b ./clean.sh"),
        ("\"./my clean.sh\"", "\"./my clean.sh\""),
    ])
    func aHooksRelativeProgramIsMadeAbsolute(written: String, command: String) throws {
        #expect(try Self.app("cleanup: {hook: '\(written)'}")?.cleanup == .hook(command: command))
    }

    @Test func anAbsoluteProgramIsQuotedForTheShell() throws {
        let app = try Self.app("cleanup: {hook: ./clean.sh x}", file: "/lab/it's here/s.yaml")
        #expect(app?.cleanup == .hook(command: #"'/lab/it'\''s here/clean.sh' x"#))
    }

    /// A folder with a scenario file, removed afterwards.
    static func withFolder(_ files: [String: Int16], _ body: (String) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("paths-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder + "/dir", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (name, mode) in files {
            let path = folder + "/" + name
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try "#!/bin/sh\n".write(toFile: path, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        }
        try body(folder)
    }

    static let apps = """
        apps:
          - {name: a, sdk: msal, executable: ./ok.sh}
          - {name: b, sdk: msal, executable: missing}
          - {name: c, sdk: msal, executable: plain.txt}
          - {name: d, sdk: msal, executable: dir}
          - {name: e, sdk: msal, cleanup: {hook: ./plain.txt --now}}
          - {name: f, sdk: msal, cleanup: {hook: rm -rf x}}
          - {name: g, sdk: msal, cleanup: {hook: ./ok.sh}}
          - {name: h, sdk: msal, cleanup: {hook: bin/missing.sh x}}

        """

    @Test func aScenarioFileNamesProgramsThatRun() throws {
        try Self.withFolder(["ok.sh": 0o755, "plain.txt": 0o644]) { folder in
            let file = folder + "/s.yaml"
            try Self.apps.write(toFile: file, atomically: true, encoding: .utf8)
            let starts = "(a relative path starts at the scenario file's folder)"
            #expect(
                throws: ScenarioProblems([
                    ScenarioProblem(
                        location: Location(file: file, line: 3, column: 38),
                        message: "executable: no file at \(folder)/missing \(starts)"),
                    ScenarioProblem(
                        location: Location(file: file, line: 4, column: 38),
                        message: "executable: \(folder)/plain.txt is not executable (chmod +x \(folder)/plain.txt)"),
                    ScenarioProblem(
                        location: Location(file: file, line: 5, column: 38),
                        message: "executable: \(folder)/dir is a folder, not a program"),
                    ScenarioProblem(
                        location: Location(file: file, line: 6, column: 42),
                        message: "hook: \(folder)/plain.txt is not executable (chmod +x \(folder)/plain.txt)"),
                    ScenarioProblem(
                        location: Location(file: file, line: 9, column: 42),
                        message: "hook: no file at \(folder)/bin/missing.sh \(starts)"),
                ])
            ) {
                try Scenario.load(path: file)
            }
            // Text that is not read from disk is not checked against it.
            let apps = try Scenario.parse(Self.apps, file: file).apps
            #expect(
                apps.first?.executable == folder + "/ok.sh"
                    && apps.last?.cleanup == .hook(command: folder + "/bin/missing.sh x"))
            #expect(throws: ScenarioProblems.self) { try Scenario.parse(Self.apps, file: file, checkingFiles: true) }
        }
    }

    /// The README's `executable: .build/debug/App` is relative to the package's root: a
    /// scenario in a folder below it is told the path from its own folder.
    @Test func aPathWrittenForAFolderAboveIsFound() throws {
        try Self.withFolder([".build/debug/App": 0o755]) { root in
            let file = root + "/Scenarios/app.yaml"
            try FileManager.default.createDirectory(atPath: root + "/Scenarios", withIntermediateDirectories: true)
            try "apps:\n  - {name: notes, sdk: msal, executable: .build/debug/App}\n".write(
                toFile: file, atomically: true, encoding: .utf8)
            #expect(
                throws: ScenarioProblems([
                    ScenarioProblem(
                        location: Location(file: file, line: 2, column: 42),
                        message: "executable: no file at \(root)/Scenarios/.build/debug/App "
                            + "(a relative path starts at the scenario file's folder: ../.build/debug/App?)")
                ])
            ) {
                try Scenario.load(path: file)
            }
            try "apps:\n  - {name: notes, sdk: msal, executable: ../.build/debug/App}\n".write(
                toFile: file, atomically: true, encoding: .utf8)
            #expect(try Scenario.load(path: file).apps.first?.executable == root + "/.build/debug/App")
        }
    }
}
