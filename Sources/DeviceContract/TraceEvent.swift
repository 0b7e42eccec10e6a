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
        guard let object = try? JSONDecoder().decode([String: FieldText].self, from: Data(line.utf8)) else {
            return nil
        }
        self.init(object: object)
    }

    private init?(object: [String: FieldText]) {
        var object = object
        guard let t = object.removeValue(forKey: "t").flatMap({ UInt64($0.text) }),
            let proc = object.removeValue(forKey: "proc")?.text, let event = object.removeValue(forKey: "event")?.text
        else { return nil }
        self.init(t: t, proc: proc, event: event, fields: object.mapValues(\.text))
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
        guard let objects = try? JSONDecoder().decode([[String: FieldText]].self, from: array),
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

/// A field's value as text, whatever JSON scalar it was written as: `true` and `false` for
/// booleans, numbers as written, `null`, a list of strings joined with commas.
private struct FieldText: Decodable {
    let text: String

    init(from decoder: any Decoder) throws {
        // Most fields are strings: tried first, since each failed attempt throws.
        let value = try decoder.singleValueContainer()
        if let string = try? value.decode(String.self) {
            text = string
        } else if value.decodeNil() {
            text = "null"
        } else if let flag = try? value.decode(Bool.self) {
            text = flag ? "true" : "false"
        } else if let number = try? value.decode(UInt64.self) {
            text = String(number)
        } else if let number = try? value.decode(Int64.self) {
            text = String(number)
        } else if let number = try? value.decode(Double.self) {
            text = String(number)
        } else {
            text = try value.decode([String].self).joined(separator: ",")
        }
    }
}
