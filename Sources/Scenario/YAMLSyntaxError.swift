import Yams

extension Scenario {
    /// A YAML syntax error at the mark libyaml gives it, or, for a common mistake libyaml words
    /// cryptically, that mistake said plainly at the place to fix.
    static func yamlProblem(_ error: any Error, text: String, file: String) -> ScenarioProblem {
        func at(_ mark: (line: Int, column: Int)?, _ message: String) -> ScenarioProblem {
            ScenarioProblem(
                location: Location(file: file, line: max(mark?.line ?? 1, 1), column: max(mark?.column ?? 1, 1)),
                message: message)
        }
        func syntax(_ context: YamlError.Context?, _ problem: String) -> String {
            "invalid YAML: " + (context.map { "\($0.text): " } ?? "") + problem
        }
        switch error as? YamlError {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            let found = YAMLSyntaxError(text: text, context: context, problem: problem, mark: (mark.line, mark.column))
            guard let (place, cause) = found.plainCause else {
                return at((mark.line, mark.column), syntax(context, problem))
            }
            return at(place, cause)
        case .reader(let problem, let offset, _, _):
            return at(offset.flatMap { mark(ofCharacter: $0, in: text) }, "invalid YAML: \(problem)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            return at(
                (context.mark.line, context.mark.column),
                "duplicate key \(duplicates.joined(separator: ", ")) in one mapping")
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

/// A libyaml error with the text it is about, to recognise the mistakes behind its messages.
struct YAMLSyntaxError {
    typealias Mark = (line: Int, column: Int)

    let lines: [[Unicode.Scalar]]
    let context: YamlError.Context?
    let problem: String
    let mark: Mark

    init(text: String, context: YamlError.Context?, problem: String, mark: Mark) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0.unicodeScalars) }
        self.context = context
        self.problem = problem
        self.mark = mark
    }

    /// Where to fix it and what it is, when it is a mistake recognised for certain.
    var plainCause: (Mark, String)? {
        tab ?? unquotable ?? unknownEscape ?? unclosedQuote ?? textAfterQuote ?? unclosedBracket ?? endsInsideBrackets
            ?? misplacedColon
    }

    /// Line `number` (from 1), if there is one.
    func line(_ number: Int) -> [Unicode.Scalar]? {
        lines.indices.contains(number - 1) ? lines[number - 1] : nil
    }

    /// The character at a mark, if there is one.
    func scalar(at mark: Mark) -> Unicode.Scalar? {
        guard let line = line(mark.line), line.indices.contains(mark.column - 1) else { return nil }
        return line[mark.column - 1]
    }

    var tab: (Mark, String)? {
        let isTab =
            problem.contains("tab character") || problem.contains("cannot start any token") && scalar(at: mark) == "\t"
        return isTab ? (mark, "a tab character: YAML indents with spaces only") : nil
    }

    /// `name: @home`: YAML reserves `@` and `` ` ``.
    var unquotable: (Mark, String)? {
        guard problem.contains("cannot start any token"), let found = scalar(at: mark),
            "@`".unicodeScalars.contains(found)
        else { return nil }
        return (mark, "text cannot start with \(found) unless it is in quotes")
    }

    /// `"C:\dir"`: in double quotes a backslash starts an escape.
    var unknownEscape: (Mark, String)? {
        guard problem.contains("unknown escape character") else { return nil }
        let escape = scalar(at: (mark.line, mark.column + 1)).map { " \\\($0)" } ?? ""
        return (mark, "unknown escape\(escape) in double quotes: write \\\\ for a backslash, or use single quotes")
    }

    /// A quote that runs to the end of the file, shown where it opens.
    var unclosedQuote: (Mark, String)? {
        guard let context, context.text.contains("quoted scalar"), problem.contains("end of stream") else { return nil }
        return (
            (context.mark.line, context.mark.column),
            "this quote is never closed (the text runs to the end of the file)"
        )
    }

    /// `'it's'` or `"a"b`: a quote ended the text and more text follows it.
    var textAfterQuote: (Mark, String)? {
        guard problem.contains("did not find expected"), let quote = scalar(at: (mark.line, mark.column - 1)),
            quote == "'" || quote == "\"",
            let next = scalar(at: mark), next != " ", next != "#"
        else { return nil }
        return (
            mark,
            "text right after a closing quote (in quotes, write '' for ' inside '…' and \\\" for \" inside \"…\"; "
                + "or a quote before it is never closed)"
        )
    }

    /// A `[` or `{` whose end libyaml did not find, shown where it opens.
    var unclosedBracket: (Mark, String)? {
        guard let context, problem.hasPrefix("did not find expected ','") else { return nil }
        let (open, close) =
            context.text.contains("flow sequence")
            ? ("[", "]") : context.text.contains("flow mapping") ? ("{", "}") : ("", "")
        guard !open.isEmpty else { return nil }
        return (
            (context.mark.line, context.mark.column),
            "this \(open) is never closed: a \(close) is missing, or a ',' between its items, before \(mark.line):\(mark.column)"
        )
    }

    /// `name: [` at the end of the file: libyaml still expects an item.
    var endsInsideBrackets: (Mark, String)? {
        let rest =
            [Array((line(mark.line) ?? []).dropFirst(max(mark.column - 1, 0)))] + lines.dropFirst(max(mark.line, 0))
        guard let context, context.text.contains("flow node"), problem.contains("expected node content"),
            rest.allSatisfy({ $0.allSatisfy(\.properties.isWhitespace) })
        else { return nil }
        return (mark, "the file ends inside [ … ] or { … }: a ] or } is missing")
    }

    /// libyaml's "mapping values are not allowed in this context": a second `: ` on a line, a
    /// key on the line above written without a space after its colon, or a line indented
    /// under a key that already has its value.
    var misplacedColon: (Mark, String)? {
        guard problem.contains("mapping values are not allowed"), mark.line >= 1, let current = line(mark.line) else {
            return nil
        }
        let before = String(String.UnicodeScalarView(current.prefix(max(mark.column - 1, 0))))
        if before.contains(": ") {
            return (mark, "a second ': ' on one line: put a value that contains ': ' in quotes")
        }
        guard let above = (1..<mark.line).reversed().first(where: { line($0)?.contains { $0 != " " } == true }),
            let aboveLine = self.line(above), let key = Self.key(aboveLine)
        else { return nil }
        if !key.spaced { return ((above, key.colon), "a space is missing after this ':' (write key: value)") }
        let indent = current.prefix { $0 == " " }.count
        guard indent >= key.column, key.plainValue else { return nil }
        return (
            (mark.line, indent + 1),
            "this line is indented under a key that already has its value (\(above):\(key.column)): line the keys up"
        )
    }

    /// The `key:` a line starts with (after its indentation and any `- `): the key's and the
    /// colon's columns, whether a space follows the colon, and whether a plain value follows that.
    static func key(_ line: [Unicode.Scalar]) -> (column: Int, colon: Int, spaced: Bool, plainValue: Bool)? {
        var start = line.prefix { $0 == " " }.count
        if line.dropFirst(start).starts(with: ["-", " "]) {
            start += 2 + line.dropFirst(start + 2).prefix { $0 == " " }.count
        }
        let name = line.dropFirst(start).prefix {
            $0.properties.isAlphabetic || ("0"..."9").contains($0) || "_-".unicodeScalars.contains($0)
        }
        let colon = start + name.count
        guard !name.isEmpty, line.indices.contains(colon + 1), line[colon] == ":", line[colon + 1] != ":" else {
            return nil
        }
        let spaced = line[colon + 1] == " " || line[colon + 1] == "\t"
        let value = line.dropFirst(colon + 1).drop { $0 == " " }.first
        let plainValue = value.map { $0.properties.isAlphabetic || ("0"..."9").contains($0) } ?? false
        return (start + 1, colon + 1, spaced, plainValue)
    }
}
