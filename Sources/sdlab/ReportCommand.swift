import ArgumentParser
import DeviceContract
import Reports

struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Work with report folders of `sdlab run --report`.",
        subcommands: [Merge.self]
    )

    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge report folders (the shards of a suite) into one.",
            discussion: """
                Reads each folder's results.json and trace.jsonl and writes OUT as `sdlab run \\
                --report` would have for one run of every scenario in them: results.json, \\
                trace.jsonl, timing.csv, junit.xml and report.html, scenarios in file order. A \\
                scenario found in two folders is an error (the folders are not disjoint shards). \\
                Exit 0 when every merged scenario passed, 1 when one failed, 2 for a folder that \\
                cannot be read, 3 when OUT cannot be written.
                """
        )

        @Argument(help: "The folder to write.")
        var out: String

        @Argument(help: "Report folders to merge.")
        var folders: [String]

        func validate() throws {
            if folders.isEmpty { throw ValidationError("name at least one report folder to merge") }
        }

        func run() throws {
            let merged: [ScenarioReport]
            do {
                merged = try ReportFolder.merge(folders)
            } catch {
                throw failure("\(error)", code: ExitCodes.usage)
            }
            do {
                try ReportFolder.write(merged, to: out)
            } catch {
                throw failure("cannot write \(out): \(error)", code: ExitCodes.environment)
            }
            let passed = merged.filter(\.passed).count
            note("\(passed) of \(merged.count) scenarios passed, from \(folders.count) folders: \(out)/report.html")
            if passed < merged.count { throw ExitCode(ExitCodes.failed) }
        }
    }
}
