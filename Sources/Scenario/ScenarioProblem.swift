/// Where a node sits in a scenario file. Lines and columns start at 1.
public struct Location: Sendable, Equatable, Hashable, Comparable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    public var description: String { "\(file):\(line):\(column)" }

    public static func < (a: Location, b: Location) -> Bool {
        (a.file, a.line, a.column) < (b.file, b.line, b.column)
    }
}

/// One thing wrong with a scenario, at the node that is wrong.
public struct ScenarioProblem: Error, Sendable, Equatable, Hashable, CustomStringConvertible {
    public var location: Location
    public var message: String

    public init(location: Location, message: String) {
        self.location = location
        self.message = message
    }

    public var description: String { "\(location): \(message)" }
}

/// Everything wrong with a scenario, in file order, so one `sdlab check` shows it all.
public struct ScenarioProblems: Error, Sendable, Equatable, CustomStringConvertible {
    public var problems: [ScenarioProblem]

    public init(_ problems: [ScenarioProblem]) {
        // Aliases can make the same node report twice: keep each problem once.
        var seen = Set<ScenarioProblem>()
        self.problems = problems.filter { seen.insert($0).inserted }
            .enumerated()
            .sorted { ($0.element.location, $0.offset) < ($1.element.location, $1.offset) }
            .map(\.element)
    }

    public var description: String { problems.map(\.description).joined(separator: "\n") }
}
