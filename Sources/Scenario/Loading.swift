import Foundation
import Yams

extension Scenario {
    /// Reads and validates a scenario file; a file that cannot be read is one problem at 1:1.
    public static func load(path: String) throws(ScenarioProblems) -> Scenario {
        func unreadable(_ reason: String) -> ScenarioProblems {
            ScenarioProblems([ScenarioProblem(location: Location(file: path, line: 1, column: 1),
                                              message: "cannot read the scenario: \(reason)")])
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw unreadable("no such file") }
        guard !isDirectory.boolValue else { throw unreadable("it is a directory") }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw unreadable(error.localizedDescription)
        }
        guard let text = String(data: data, encoding: .utf8) else { throw unreadable("it is not UTF-8 text") }
        return try parse(text, file: path)
    }

    /// Validates a scenario's text; `file` names it in every problem.
    public static func parse(_ text: String, file: String) throws(ScenarioProblems) -> Scenario {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            throw ScenarioProblems([yamlProblem(error, text: text, file: file)])
        }
        var reader = Reader(file: file)
        let scenario = reader.scenario(root)
        guard let scenario, reader.problems.isEmpty else { throw ScenarioProblems(reader.problems) }
        return scenario
    }

    /// A YAML syntax error at the mark libyaml gives it.
    static func yamlProblem(_ error: any Error, text: String, file: String) -> ScenarioProblem {
        func at(_ mark: (line: Int, column: Int)?, _ message: String) -> ScenarioProblem {
            ScenarioProblem(location: Location(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1), message: message)
        }
        func syntax(_ context: YamlError.Context?, _ problem: String) -> String {
            "invalid YAML: " + (context.map { "\($0.text): " } ?? "") + problem
        }
        switch error as? YamlError {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
             .composer(let context, let problem, let mark, _):
            return at((mark.line, mark.column), syntax(context, problem))
        case .reader(let problem, let offset, _, _):
            return at(offset.flatMap { mark(ofCharacter: $0, in: text) }, "invalid YAML: \(problem)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            return at((context.mark.line, context.mark.column), "duplicate key \(duplicates.joined(separator: ", ")) in one mapping")
        default:
            return at(nil, "invalid YAML: \(error)")
        }
    }

    /// Line and column (in Unicode scalars, as libyaml counts) of the character at `offset`.
    static func mark(ofCharacter offset: Int, in text: String) -> (line: Int, column: Int)? {
        guard let index = text.index(text.startIndex, offsetBy: offset, limitedBy: text.endIndex) else { return nil }
        let before = text[..<index]
        let lineStart = before.lastIndex(where: \.isNewline).map { before.index(after: $0) } ?? before.startIndex
        let line = before.filter(\.isNewline).count + 1
        return (line, before[lineStart...].unicodeScalars.count + 1)
    }
}

extension Scenario {
    /// The scenario files named: a file as given, a folder as its `.yaml` and `.yml` files in
    /// name order (not its subfolders).
    public static func files(in paths: [String]) -> [String] {
        paths.flatMap { path -> [String] in
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { return [path] }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            return names.filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted()
                .map { (path.hasSuffix("/") ? path : path + "/") + $0 }
        }
    }
}
