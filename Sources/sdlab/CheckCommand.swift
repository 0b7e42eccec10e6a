import ArgumentParser
import DeviceContract
import RunResults
import Scenario

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate scenario files without running them.",
        discussion: """
            Reads each scenario (a folder stands for its .yaml and .yml files) and reports every \
            problem as FILE:LINE:COL: message on stderr: unknown keys, wrong types, unknown apps \
            or users, bad durations, fleet names that clash, steps that cannot apply. Exit 0 when \
            all are valid, 2 otherwise.
            """
    )

    @Argument(help: "Scenario files or folders of them.")
    var scenarios: [String]

    func run() throws {
        let files = Scenario.files(in: scenarios)
        guard !files.isEmpty else {
            throw failure("no scenario files in \(scenarios.joined(separator: " "))", code: ExitCodes.usage)
        }
        var invalid = 0
        for file in files {
            do throws(ScenarioProblems) {
                let scenario = try Scenario.load(path: file)
                emitLine(
                    "✓ \(VisibleText.escaped(file)): \(VisibleText.escaped(scenario.name)) (\(scenario.apps.count) apps, \(scenario.steps.count) steps)"
                )
            } catch {
                invalid += 1
                note(error.description)
            }
        }
        if invalid > 0 {
            throw failure("\(invalid) of \(files.count) scenario files are invalid", code: ExitCodes.usage)
        }
    }
}
