import Foundation
import Scenario
import Testing

/// One hook command as a scenario file on disk writes it, and what `check` makes of it: the
/// command the runner will give `/bin/sh -c`, or the problem it reports. `FOLDER` stands for the
/// scenario file's folder.
struct HookCase: Sendable, CustomTestStringConvertible {
    enum Outcome: Sendable, Equatable {
        case runs(String)
        case refused(String)
    }

    let hook: String
    let outcome: Outcome

    init(_ hook: String, _ outcome: Outcome) {
        self.hook = hook
        self.outcome = outcome
    }

    var testDescription: String { hook }
}

/// Docs/scenarios.md, "Paths": only the first word of a hook is a path, and only when it has a
/// `/`; that program must exist, be no folder and be executable, whatever it is.
@Suite struct HookProgramTests {
    static let starts = "(a relative path starts at the scenario file's folder)"

    static let cases: [HookCase] = [
        // An interpreter by its absolute path: checked and kept; its script is the shell's
        // argument, run from the scenario file's folder.
        HookCase("/bin/sh ./clean.sh", .runs("/bin/sh ./clean.sh")),
        HookCase("/bin/sh ./missing.sh", .runs("/bin/sh ./missing.sh")),
        // A bare program name has no `/`: left to the shell, which finds it on PATH.
        HookCase("python3 clean.py", .runs("python3 clean.py")),
        HookCase("sh clean.sh --all", .runs("sh clean.sh --all")),
        // A relative script or compiled program: made absolute from the scenario file's folder.
        HookCase("./clean.sh --all", .runs("FOLDER/clean.sh --all")),
        HookCase("tools/cleaner", .runs("FOLDER/tools/cleaner")),
        HookCase("/usr/bin/env sh ./clean.sh", .runs("/usr/bin/env sh ./clean.sh")),
        // What cannot run, named at the hook.
        HookCase("./missing.sh", .refused("hook: no file at FOLDER/missing.sh \(starts)")),
        HookCase("/no/such/interpreter ./clean.sh", .refused("hook: no file at /no/such/interpreter")),
        HookCase("./notes.txt", .refused("hook: FOLDER/notes.txt is not executable (chmod +x FOLDER/notes.txt)")),
        HookCase("./tools x", .refused("hook: FOLDER/tools is a folder, not a program")),
    ]

    @Test(arguments: cases)
    func aHookIsCheckedAsTheDocumentSays(_ hookCase: HookCase) throws {
        try Self.withHookFolder { folder in
            let file = folder + "/s.yaml"
            let text = "apps:\n  - {name: mail, sdk: msal, cleanup: {hook: '\(hookCase.hook)'}}\n"
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            let expanded = { (text: String) in text.replacingOccurrences(of: "FOLDER", with: folder) }
            switch hookCase.outcome {
            case .runs(let command):
                let app = try Scenario.load(path: file).apps.first
                #expect(app?.cleanup == .hook(command: expanded(command)))
            case .refused(let message):
                let problem = ScenarioProblem(
                    location: Location(file: file, line: 2, column: 45), message: expanded(message))
                #expect(throws: ScenarioProblems([problem])) { try Scenario.load(path: file) }
            }
        }
    }

    /// A folder holding a script, a compiled program (`tools/cleaner`, a copy of `/bin/true`),
    /// a file that is not executable and a folder; removed afterwards.
    static func withHookFolder(_ body: (String) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hooks-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder + "/tools", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "#!/bin/sh\n".write(toFile: folder + "/clean.sh", atomically: true, encoding: .utf8)
        try "print()\n".write(toFile: folder + "/clean.py", atomically: true, encoding: .utf8)
        try "notes\n".write(toFile: folder + "/notes.txt", atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: "/bin/true", toPath: folder + "/tools/cleaner")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder + "/clean.sh")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder + "/tools/cleaner")
        try body(folder)
    }
}
