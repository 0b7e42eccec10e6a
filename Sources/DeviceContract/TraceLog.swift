import DeviceProcesses
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A value of a trace event's field.
public enum TraceValue: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral
{
    case string(String)
    case int(Int64)
    case uint(UInt64)
    case bool(Bool)
    case strings([String])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }

    /// A name or `none`, as traces and callbacks write a missing user.
    public static func user(_ name: String?) -> TraceValue { .string(name ?? noUser) }

    public static let noUser = "none"
}

/// One process's trace: one JSON object per line, `{"t":NS,"proc":NAME,"event":EVENT,…}`,
/// `t` in CLOCK_MONOTONIC nanoseconds (one clock for the whole machine, so the lines of every
/// process merge into one timeline). Lines go into a memory-mapped file (`MappedLog`): no
/// system call per event, and a process killed at any moment leaves its lines behind.
public final class TraceLog: Sendable {
    public let process: String
    public let path: String
    private let file: MappedLog

    public struct OpenError: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// Opens (creating, 0600) the file to append to. A file past `ulimit -f` is from then on a
    /// failed write for this process (EFBIG, said in the trace), not a SIGXFSZ that kills it.
    public init(path: String, process: String) throws(OpenError) {
        signal(SIGXFSZ, SIG_IGN)
        file = try MappedLog(path: path)
        self.process = process
        self.path = path
    }

    /// Cuts the file back to its lines; nothing more is recorded.
    public func close() { file.close() }

    /// Now, on the clock every trace uses.
    public static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Appends an event stamped now (or at `time`, for an event noticed earlier than it is written).
    public func record(
        _ event: TraceName, at time: UInt64 = TraceLog.now(), _ fields: KeyValuePairs<TraceField, TraceValue> = [:]
    ) {
        write(event.rawValue, at: time) { line in
            for (key, value) in fields { Self.appendField(key.rawValue, value, to: &line) }
        }
    }

    public func record(_ event: TraceName, at time: UInt64 = TraceLog.now(), fields: [(TraceField, TraceValue)]) {
        write(event.rawValue, at: time) { line in
            for (key, value) in fields { Self.appendField(key.rawValue, value, to: &line) }
        }
    }

    /// Appends the line whole, built where it is copied from: no array of its own.
    private func write(_ event: String, at time: UInt64, fields appendFields: (inout [UInt8]) -> Void) {
        let failure = file.appendLine { line in appendLine(event, at: time, fields: appendFields, to: &line) }
        if let failure { recordWriteFailure(failure) }
    }

    /// The line as bytes.
    private func line(_ event: String, at time: UInt64, fields appendFields: (inout [UInt8]) -> Void) -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(160)
        appendLine(event, at: time, fields: appendFields, to: &line)
        return line
    }

    private func appendLine(
        _ event: String, at time: UInt64, fields appendFields: (inout [UInt8]) -> Void, to line: inout [UInt8]
    ) {
        line += #"{"t":"#.utf8
        Self.appendDecimal(time, to: &line)
        line += #","proc":"#.utf8
        Self.appendQuoted(process, to: &line)
        line += #","event":"#.utf8
        Self.appendQuoted(event, to: &line)
        appendFields(&line)
        line += "}\n".utf8
    }

    /// The file cannot grow: its last line says so (`write-failed`, in the space kept for it),
    /// so the runner never takes the lines before it for the whole trace, and stderr says it too.
    private func recordWriteFailure(_ code: Int32) {
        let why = errorText(code)
        file.appendLastWords(
            line(TraceName.writeFailed.rawValue, at: Self.now()) { line in
                Self.appendField(TraceField.path.rawValue, .string(path), to: &line)
                Self.appendField(TraceField.error.rawValue, .string(why), to: &line)
            })
        let note = "\(process): cannot write the trace file \(path): \(why); lines after this are lost\n"
        writeAll(note.utf8, to: STDERR_FILENO)
    }

    private static func appendField(_ key: String, _ value: TraceValue, to line: inout [UInt8]) {
        line.append(UInt8(ascii: ","))
        appendQuoted(key, to: &line)
        line.append(UInt8(ascii: ":"))
        appendJSON(value, to: &line)
    }

    private static func appendJSON(_ value: TraceValue, to line: inout [UInt8]) {
        switch value {
        case .string(let text): appendQuoted(text, to: &line)
        case .int(let number):
            if number < 0 { line.append(UInt8(ascii: "-")) }
            appendDecimal(number.magnitude, to: &line)
        case .uint(let number): appendDecimal(number, to: &line)
        case .bool(let flag): line += (flag ? "true" : "false").utf8
        case .strings(let texts):
            line.append(UInt8(ascii: "["))
            for (index, text) in texts.enumerated() {
                if index > 0 { line.append(UInt8(ascii: ",")) }
                appendQuoted(text, to: &line)
            }
            line.append(UInt8(ascii: "]"))
        }
    }

    /// Appends the digits of `number` without making a String of them.
    static func appendDecimal(_ number: UInt64, to line: inout [UInt8]) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for UInt64.max's 20 digits
        withUnsafeMutableBytes(of: &digits) { buffer in
            var rest = number
            var index = buffer.count
            repeat {
                index -= 1
                buffer[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            line += buffer[index...]
        }
    }

    /// Appends a JSON string literal: the bytes as they are unless one needs escaping.
    static func appendQuoted(_ text: String, to line: inout [UInt8]) {
        let copied = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard bytes.allSatisfy(isPlain) else { return false }
            line.append(UInt8(ascii: "\""))
            line.append(contentsOf: bytes)
            line.append(UInt8(ascii: "\""))
            return true
        }
        if copied == true { return }
        if copied == nil, text.utf8.allSatisfy(isPlain) {
            line.append(UInt8(ascii: "\""))
            line += text.utf8
            line.append(UInt8(ascii: "\""))
        } else {
            line += quoted(text).utf8
        }
    }

    /// A byte a JSON string literal holds as it is.
    private static func isPlain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
    }

    /// A JSON string literal.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out +=
                    "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
