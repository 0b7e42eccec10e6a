import Foundation
import SharedDevice
import Yams

/// Walks a composed YAML tree into the model, collecting every problem instead of stopping at
/// the first, so one `sdlab check` lists everything wrong with a file.
struct Reader {
    let file: String
    /// The scenario file's folder, absolute: relative paths in the file start there.
    let folder: String
    /// Whether executables and hooks must be programs on this machine (a file read from disk).
    let checksFiles: Bool
    var problems: [ScenarioProblem] = []

    // What steps and expectations may name, filled from `users` and `apps` before the steps.
    var users: [String: DirectoryUser] = [:]
    var userOrder: [String] = []
    /// Every app name in order, fleets expanded.
    var appOrder: [String] = []
    /// nil for an app whose entry was wrong: its name is known (no second problem for every
    /// reference) but not its kind.
    var apps: [String: AppEntry?] = [:]
    var fleets: [String: [String]] = [:]
    /// The apps as declared, for messages: `mail`, `fleet1 … fleet50`.
    var appSummary: [String] = []
    /// Aliases can repeat a `repeat` inside another: a bound keeps the model finite.
    var stepBudget = 100_000

    init(file: String, checksFiles: Bool = false) {
        self.file = file
        self.folder = Scenario.folder(of: file)
        self.checksFiles = checksFiles
    }

    func location(_ node: Node) -> Location {
        Location(file: file, line: node.mark?.line ?? 1, column: node.mark?.column ?? 1)
    }

    mutating func report(_ node: Node, _ message: String) {
        report(at: location(node), message)
    }

    mutating func report(at location: Location, _ message: String) {
        problems.append(ScenarioProblem(location: location, message: message))
    }
}

// MARK: - YAML shapes

/// One `key: value` of a mapping.
struct Entry {
    let key: String
    let keyNode: Node
    let value: Node
}

/// A mapping's entries in the order written, also found by key.
struct Fields {
    let entries: [Entry]
    subscript(key: String) -> Entry? { entries.first { $0.key == key } }
}

extension Reader {
    /// A plain `~`, `null` or nothing at all.
    static func isNull(_ node: Node) -> Bool {
        guard case .scalar(let scalar) = node, scalar.style == .plain else { return false }
        return ["", "~", "null", "Null", "NULL"].contains(scalar.string)
    }

    /// What a node is, for "expected …, found …".
    static func describe(_ node: Node) -> String {
        switch node {
        case .scalar where isNull(node): return "nothing"
        case .scalar(let scalar): return "'\(shown(scalar.string))'"
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .alias: return "an alias"
        }
    }

    /// Text from the file as a message quotes it: short, and on one line.
    static func shown(_ text: String) -> String {
        let short = text.count > 40 ? text.prefix(40) + "…" : Substring(text)
        var result = ""
        for scalar in short.unicodeScalars {
            if scalar.properties.generalCategory == .control {
                result += scalar.escaped(asASCII: true)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `checkout:cou1` read as one text: a key or step name, a colon and a value with no space.
    static func missingSpace(_ text: String, names: [String]) -> String? {
        guard let colon = text.firstIndex(of: ":"), names.contains(String(text[..<colon])) else { return nil }
        let value = text[text.index(after: colon)...]
        guard let first = value.first, first != " " else { return nil }
        return "a space is missing after ':' in \(shown(text)) (write \(text[..<colon]): \(shown(String(value))))"
    }

    mutating func expected(_ what: String, _ expectation: String, found node: Node) {
        report(node, "\(what): expected \(expectation), found \(Self.describe(node))")
    }

    /// A mapping with only `allowed` keys (in this order in messages) and every `required` one.
    mutating func mapping(_ node: Node, _ what: String, allowed: [String], required: [String] = []) -> Fields? {
        guard case .mapping(let mapping) = node else {
            expected(what, "a mapping with \(allowed.joined(separator: ", "))", found: node)
            return nil
        }
        var entries: [Entry] = []
        var unspaced: Set<String> = []  // `name:mail`: reported once, not also as a missing `name`
        for (keyNode, value) in mapping {
            guard case .scalar(let key) = keyNode, !Self.isNull(keyNode) else {
                expected(what, "a key name", found: keyNode)
                continue
            }
            guard allowed.contains(key.string) else {
                if let missing = Self.missingSpace(key.string, names: allowed) {
                    report(keyNode, missing)
                    unspaced.insert(String(key.string.prefix { $0 != ":" }))
                    continue
                }
                report(
                    keyNode,
                    "unknown key \(Self.shown(key.string)) in \(what) (expected \(allowed.joined(separator: ", ")))")
                continue
            }
            entries.append(Entry(key: key.string, keyNode: keyNode, value: value))
        }
        let fields = Fields(entries: entries)
        for key in required where fields[key] == nil && !unspaced.contains(key) {
            report(node, "\(what) is missing \(key)")
        }
        return fields
    }

    /// A mapping's entries with any key names, in order (`expect` targets, a step's name).
    mutating func keyedEntries(_ node: Node, _ what: String) -> [Entry]? {
        guard case .mapping(let mapping) = node else {
            expected(what, "a mapping", found: node)
            return nil
        }
        return mapping.compactMap { keyNode, value in
            guard case .scalar(let key) = keyNode, !Self.isNull(keyNode) else {
                expected(what, "a key name", found: keyNode)
                return nil
            }
            return Entry(key: key.string, keyNode: keyNode, value: value)
        }
    }

    mutating func list(_ node: Node, _ what: String, of items: String) -> [Node]? {
        guard case .sequence(let sequence) = node else {
            expected(what, "a list of \(items)", found: node)
            return nil
        }
        return Array(sequence)
    }

    // MARK: - Scalars

    /// Any scalar but null, as written.
    mutating func text(_ node: Node, _ what: String, expecting: String = "a text") -> String? {
        guard case .scalar(let scalar) = node, !Self.isNull(node) else {
            expected(what, expecting, found: node)
            return nil
        }
        return scalar.string
    }

    /// A scalar of ASCII characters that `allowed` accepts (names end up in D-Bus names,
    /// canary paths and file names).
    mutating func identifier(
        _ node: Node, _ what: String, expecting: String,
        allowed: (Unicode.Scalar) -> Bool, first: (Unicode.Scalar) -> Bool
    ) -> String? {
        guard let text = text(node, what, expecting: expecting) else { return nil }
        guard let head = text.unicodeScalars.first, first(head), text.unicodeScalars.allSatisfy(allowed) else {
            expected(what, expecting, found: node)
            return nil
        }
        return text
    }

    mutating func int(_ node: Node, _ what: String, in range: ClosedRange<Int>) -> Int? {
        let expecting =
            range.upperBound == .max
            ? "a whole number of at least \(range.lowerBound)"
            : "a whole number from \(range.lowerBound) to \(range.upperBound)"
        guard let text = text(node, what, expecting: expecting) else { return nil }
        guard let value = Int(text) else {
            expected(what, expecting, found: node)
            return nil
        }
        guard range.contains(value) else {
            report(node, "\(what): expected \(expecting), found \(value)")
            return nil
        }
        return value
    }

    mutating func bool(_ node: Node, _ what: String) -> Bool? {
        switch text(node, what, expecting: "true or false") {
        case "true", "True", "TRUE": return true
        case "false", "False", "FALSE": return false
        case nil: return nil
        default:
            expected(what, "true or false", found: node)
            return nil
        }
    }

    mutating func duration(_ node: Node, _ what: String) -> Duration? {
        let expecting = "a duration such as 250ms, 5s or 2m"
        guard let text = text(node, what, expecting: expecting) else { return nil }
        // `1500` could mean either unit: a duration says which.
        let number = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if Double(number) != nil {
            report(
                node, "\(what): \(Self.shown(number)) needs a unit (\(Self.shown(number))ms or \(Self.shown(number))s?)"
            )
            return nil
        }
        guard let duration = Durations.parse(text) else {
            report(node, "\(what): bad duration '\(Self.shown(text))' (expected \(expecting))")
            return nil
        }
        return duration
    }

    mutating func choice<T: RawRepresentable & CaseIterable>(_ node: Node, _ what: String, _: T.Type) -> T?
    where T.RawValue == String {
        choice(node, what, Array(T.allCases))
    }

    /// One of `cases`, by its raw value.
    mutating func choice<T: RawRepresentable>(_ node: Node, _ what: String, _ cases: [T]) -> T?
    where T.RawValue == String {
        let expecting = "one of " + cases.map(\.rawValue).joined(separator: ", ")
        guard let text = text(node, what, expecting: expecting) else { return nil }
        guard let value = T(rawValue: text) else {
            expected(what, expecting, found: node)
            return nil
        }
        return value
    }

    /// An error name as on the bus after `dev.sdlab.Error.`: letters and digits.
    mutating func errorName(_ node: Node, _ what: String) -> String? {
        identifier(
            node, what, expecting: "an error name such as Offline or NotCheckedOut",
            allowed: { $0.isASCII && $0.properties.isAlphabetic || ("0"..."9").contains($0) },
            first: { $0.isASCII && $0.properties.isAlphabetic })
    }
}
