import Foundation

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
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let t = (object["t"] as? NSNumber)?.uint64Value, let proc = object["proc"] as? String,
            let event = object["event"] as? String
        else { return nil }
        var fields: [String: String] = [:]
        for (key, value) in object where !["t", "proc", "event"].contains(key) {
            fields[key] = (value as? String) ?? Self.text(of: value)
        }
        self.init(t: t, proc: proc, event: event, fields: fields)
    }

    /// A JSON number or boolean as text: `true` and `false` for booleans, which Foundation
    /// reads as numbers.
    private static func text(of value: Any) -> String {
        if let number = value as? NSNumber, String(cString: number.objCType) == "c" {
            return number.boolValue ? "true" : "false"
        }
        return "\(value)"
    }

    /// Every event of one trace file, in its order (none if it cannot be read).
    public static func events(in file: String) -> [TraceEvent] {
        lines(in: file).compactMap(TraceEvent.init(line:))
    }

    /// The lines of one trace file: what comes before the zeros a killed writer leaves (see
    /// `MappedLog`); none if it cannot be read.
    public static func lines(in file: String) -> [Substring] {
        guard let data = FileManager.default.contents(atPath: file) else { return [] }
        return String(decoding: data.prefix { $0 != 0 }, as: UTF8.self).split(separator: "\n")
    }

    /// Every event of every trace file in `folder`, merged in time order (stable for equal times).
    public static func merged(from folder: String) -> [TraceEvent] {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
            $0.hasSuffix(".jsonl")
        }.sorted()
        let events = files.flatMap { TraceEvent.events(in: folder + "/" + $0) }
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
