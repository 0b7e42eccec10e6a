import FoundationEssentials
import Glibc

/// One line of a process's trace (`{"t", "proc", "event", …}`), its other fields as the JSON
/// values they were written as: read numbers with `integer(_:as:)` and flags with `bool(_:)`.
public struct TraceEvent: Equatable, Sendable {
    public var t: UInt64
    public var proc: String
    public var event: String
    public var fields: [String: TraceValue]

    public init(t: UInt64, proc: String, event: TraceName, fields: [TraceField: TraceValue] = [:]) {
        self.init(
            t: t, proc: proc, event: event.rawValue,
            fields: Dictionary(uniqueKeysWithValues: fields.map { ($0.key.rawValue, $0.value) }))
    }

    public init(t: UInt64, proc: String, event: String, fields: [String: TraceValue] = [:]) {
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

    private init(object: LineObject) {
        self.init(t: object.t, proc: object.proc, event: object.event, fields: object.fields)
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
        return objects.map(TraceEvent.init(object:))
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

    /// The field as text, whatever its type: for showing it, and for the fields written as
    /// strings. Numbers and flags are read with `integer(_:as:)` and `bool(_:)`.
    public subscript(_ field: TraceField) -> String? { fields[field.rawValue]?.description }

    /// A field written as a number, if it fits `Integer`; nil for no field, another type, or a
    /// number out of range.
    public func integer<Integer: FixedWidthInteger>(_ field: TraceField, as _: Integer.Type = Integer.self)
        -> Integer?
    {
        switch fields[field.rawValue] {
        case .int(let number): Integer(exactly: number)
        case .uint(let number): Integer(exactly: number)
        default: nil
        }
    }

    /// A field written as a boolean; nil for no field or another type.
    public func bool(_ field: TraceField) -> Bool? {
        if case .bool(let flag) = fields[field.rawValue] { flag } else { nil }
    }

    /// A user field: nil for `none` (or no field).
    public func user(_ field: TraceField = .user) -> String? {
        self[field].flatMap { $0 == TraceValue.noUser || $0.isEmpty ? nil : $0 }
    }
}

extension TraceValue: CustomStringConvertible {
    /// The value as text: numbers in decimal, `true` or `false`, a list joined with commas.
    public var description: String {
        switch self {
        case .string(let text): text
        case .int(let number): String(number)
        case .uint(let number): String(number)
        case .bool(let flag): flag ? "true" : "false"
        case .strings(let texts): texts.joined(separator: ",")
        }
    }
}

/// A trace line's object: `t`, `proc` and `event`, and every other field as the value the
/// format writes (string, integer, boolean, list of strings). A null is no field; a value of
/// another kind (a fraction, an object), which our processes never write, is left out.
private struct LineObject: Decodable {
    let t: UInt64
    let proc: String
    let event: String
    let fields: [String: TraceValue]

    private struct Key: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    private static let t = Key(stringValue: "t")
    private static let proc = Key(stringValue: "proc")
    private static let event = Key(stringValue: "event")
    private static let named: Set = [t.stringValue, proc.stringValue, event.stringValue]

    init(from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: Key.self)
        t = try object.decode(UInt64.self, forKey: Self.t)
        proc = try object.decode(String.self, forKey: Self.proc)
        event = try object.decode(String.self, forKey: Self.event)
        var fields: [String: TraceValue] = [:]
        for key in object.allKeys where !Self.named.contains(key.stringValue) {
            fields[key.stringValue] = Self.value(object, key)
        }
        self.fields = fields
    }

    /// Strings first (most values are), then integers, since each failed attempt throws. An
    /// integer is `.int` when it fits, so a line reads back as the value a literal makes.
    private static func value(_ object: KeyedDecodingContainer<Key>, _ key: Key) -> TraceValue? {
        if let string = try? object.decode(String.self, forKey: key) { return .string(string) }
        if let number = try? object.decode(Int64.self, forKey: key) { return .int(number) }
        if let flag = try? object.decode(Bool.self, forKey: key) { return .bool(flag) }
        if let number = try? object.decode(UInt64.self, forKey: key) { return .uint(number) }
        if let texts = try? object.decode([String].self, forKey: key) { return .strings(texts) }
        return nil
    }
}

extension TraceEvent {
    /// The cleanup a `launched` or cleanup event names: `wipe-all`, `hook ./clean.sh (keeps common)`.
    public var cleanupThatRan: String {
        (self[.hook].map { "hook \($0)" } ?? self[.policy] ?? "?") + (self[.keeps].map { " (keeps \($0))" } ?? "")
    }
}
