import Foundation
import Yams

extension Scenario {
    /// The largest scenario file read: a thousand apps and steps take a few hundred KiB.
    public static let mostBytes = 1 << 20

    /// Reads and validates a scenario file; a file that cannot be read is one problem at 1:1.
    public static func load(path: String) throws(ScenarioProblems) -> Scenario {
        func unreadable(_ reason: String) -> ScenarioProblems {
            ScenarioProblems([
                ScenarioProblem(
                    location: Location(file: path, line: 1, column: 1),
                    message: "cannot read the scenario: \(reason)")
            ])
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw unreadable("no such file")
        }
        guard !isDirectory.boolValue else { throw unreadable("it is a directory") }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard size <= mostBytes else {
            throw unreadable("it is \(size) bytes, over the limit of \(mostBytes) (1 MiB) a scenario may have")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw unreadable(error.localizedDescription)
        }
        guard let text = String(data: data, encoding: .utf8) else { throw unreadable("it is not UTF-8 text") }
        return try parse(text, file: path, checkingFiles: true)
    }

    /// Validates a scenario's text; `file` names it in every problem, and relative paths in it
    /// (executables, hooks) start at `file`'s folder. With `checkingFiles` (as `load` does),
    /// every executable and hook program it names must also be an executable file now; text
    /// that is not read from a file (a scenario just written) is checked without them.
    public static func parse(_ text: String, file: String, checkingFiles: Bool = false) throws(ScenarioProblems)
        -> Scenario
    {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            throw ScenarioProblems([yamlProblem(error, text: text, file: file)])
        }
        var reader = Reader(file: file, checksFiles: checkingFiles)
        let scenario = reader.scenario(root)
        guard let scenario, reader.problems.isEmpty else { throw ScenarioProblems(reader.problems) }
        return scenario
    }
}

extension Scenario {
    /// The scenario files named: a file as given, a folder as its `.yaml` and `.yml` files in
    /// name order (not its subfolders).
    public static func files(in paths: [String]) -> [String] {
        paths.flatMap { path -> [String] in
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                return [path]
            }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            return names.filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted()
                .map { (path.hasSuffix("/") ? path : path + "/") + $0 }
        }
    }
}
