import FoundationEssentials
import Glibc

/// One line of a process's trace (`{"t", "proc", "event", …}`), its other fields as text.
public struct TraceEvent: Equatable, Sendable {
    public var t: UInt64
    public var proc: String
    public var event: String
    public var fields: [String: String]

    public init(t: UInt64, proc: String, event: TraceName, fields: [TraceField: String] = [:]) {
        self.init(
            t: t, proc: proc, event: event.rawValue,
            fields: Dictionary(uniqueKeysWithValues: fields.map { ($0.key.rawValue, $0.value) }))
    }

    public init(t: UInt64, proc: String, event: String, fields: [String: String] = [:]) {
        self.t = t
        self.proc = proc
        self.event = event
        self.fields = fields
    }

    /// A trace line; nil for a line that is not a whole event (a process killed mid-write
    /// leaves none, but a foreign file might).
    public init?(line: Substring) {
        guard let object = try? JSONDecoder().decode(LineObject.self, from: Data(line.utf8)) else { return nil }
        self.init(object: object)
    }

    private init?(object: LineObject) {
        var fields = object.fields
        guard let t = fields.removeValue(forKey: "t").flatMap({ UInt64($0) }),
            let proc = fields.removeValue(forKey: "proc"), let event = fields.removeValue(forKey: "event")
        else { return nil }
        self.init(t: t, proc: proc, event: event, fields: fields)
    }

    /// Every event of one trace file, in its order (none if it cannot be read).
    public static func events(in file: String) -> [TraceEvent] { events(inLines: lines(in: file)) }

    /// The events of trace lines, skipping those that are not whole events. Decoded as one
    /// JSON array when every line is an object (one decoder call instead of one per line);
    /// else line by line.
    public static func events(inLines lines: [Substring]) -> [TraceEvent] {
        var array = Data("[".utf8)
        for (index, line) in lines.enumerated() {
            if index > 0 { array.append(UInt8(ascii: ",")) }
            array.append(contentsOf: line.utf8)
        }
        array.append(UInt8(ascii: "]"))
        guard let objects = try? JSONDecoder().decode([LineObject].self, from: array),
            objects.count == lines.count
        else { return lines.compactMap(TraceEvent.init(line:)) }
        return objects.compactMap(TraceEvent.init(object:))
    }

    /// The lines of one trace file: what comes before the zeros a killed writer leaves (see
    /// `MappedLog`); none if it cannot be read.
    public static func lines(in file: String) -> [Substring] {
        guard let data = FileManager.default.contents(atPath: file) else { return [] }
        return String(decoding: data.prefix { $0 != 0 }, as: UTF8.self).split(separator: "\n")
    }

    /// The names of the trace files in `folder` (one per process), sorted.
    public static func traceFiles(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".jsonl") }
            .sorted()
    }

    /// Every event of every trace file in `folder`, merged in time order (stable for equal times).
    public static func merged(from folder: String) -> [TraceEvent] {
        let events = traceFiles(in: folder).flatMap { TraceEvent.events(in: folder + "/" + $0) }
        return events.enumerated().sorted { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }.map(\.element)
    }
}

extension TraceEvent {
    /// The event's name in the vocabulary; nil for one it does not know.
    public var name: TraceName? { TraceName(rawValue: event) }

    public func `is`(_ name: TraceName) -> Bool { event == name.rawValue }

    public subscript(_ field: TraceField) -> String? { fields[field.rawValue] }

    /// A user field: nil for `none` (or no field).
    public func user(_ field: TraceField = .user) -> String? {
        self[field].flatMap { $0 == TraceValue.noUser || $0.isEmpty ? nil : $0 }
    }
}

/// A trace line's object, every value as text, whatever JSON scalar it was written as: `true`
/// and `false` for booleans, numbers as written, `null`, a list of strings joined with commas.
private struct LineObject: Decodable {
    let fields: [String: String]

    /// The keys our processes write numbers under (and the time): tried as numbers first.
    private static let numeric: Set = ["t", "generation", "state", "serial", "count", "pid"]

    private struct Key: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: Key.self)
        var fields: [String: String] = [:]
        for key in object.allKeys {
            if Self.numeric.contains(key.stringValue), let number = try? object.decode(UInt64.self, forKey: key) {
                fields[key.stringValue] = String(number)
            } else {
                fields[key.stringValue] = try Self.text(object, key)
            }
        }
        self.fields = fields
    }

    /// Strings first (most values are), since each failed attempt throws.
    private static func text(_ object: KeyedDecodingContainer<Key>, _ key: Key) throws -> String {
        if let string = try? object.decode(String.self, forKey: key) { return string }
        if try object.decodeNil(forKey: key) { return "null" }
        if let flag = try? object.decode(Bool.self, forKey: key) { return flag ? "true" : "false" }
        if let number = try? object.decode(UInt64.self, forKey: key) { return String(number) }
        if let number = try? object.decode(Int64.self, forKey: key) { return String(number) }
        if let number = try? object.decode(Double.self, forKey: key) { return String(number) }
        return try object.decode([String].self, forKey: key).joined(separator: ",")
    }
}

extension TraceEvent {
    /// The cleanup a `launched` or cleanup event names: `wipe-all`, `hook ./clean.sh (keeps common)`.
    public var cleanupThatRan: String {
        (self[.hook].map { "hook \($0)" } ?? self[.policy] ?? "?") + (self[.keeps].map { " (keeps \($0))" } ?? "")
    }
}
