import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A value of a trace event's field.
public enum TraceValue: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral {
    case string(String)
    case int(Int64)
    case uint(UInt64)
    case bool(Bool)
    case strings([String])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }

    /// A name or `none`, as traces and callbacks write a missing user.
    public static func user(_ name: String?) -> TraceValue { .string(name ?? "none") }
}

/// One process's trace: one JSON object per line, `{"t":NS,"proc":NAME,"event":EVENT,…}`,
/// `t` in CLOCK_MONOTONIC nanoseconds (one clock for the whole machine, so the lines of every
/// process merge into one timeline). Each event is one `write` to a file opened for appending,
/// so a process killed at any moment leaves whole lines behind.
public final class TraceLog: Sendable {
    public let process: String
    private let fd: Mutex<Int32>

    /// Opens (creating, 0600) the file for appending.
    public init(path: String, process: String) throws(LaunchError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw LaunchError("cannot open the trace file \(path): \(String(cString: strerror(errno)))") }
        self.process = process
        self.fd = Mutex(fd)
    }

    deinit { fd.withLock { _ = close($0) } }

    /// Now, on the clock every trace uses.
    public static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Appends an event stamped now (or at `time`, for an event noticed earlier than it is written).
    public func record(_ event: String, at time: UInt64 = TraceLog.now(), _ fields: KeyValuePairs<String, TraceValue> = [:]) {
        record(event, at: time, fields: fields.map { ($0.key, $0.value) })
    }

    public func record(_ event: String, at time: UInt64 = TraceLog.now(), fields: [(String, TraceValue)]) {
        var line = "{\"t\":\(time),\"proc\":\(Self.quoted(process)),\"event\":\(Self.quoted(event))"
        for (key, value) in fields {
            line += ",\(Self.quoted(key)):\(Self.json(value))"
        }
        line += "}\n"
        fd.withLock { fd in
            let bytes = Array(line.utf8)
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }  // a full disk loses trace lines, never the app
                offset += written
            }
        }
    }

    private static func json(_ value: TraceValue) -> String {
        switch value {
        case .string(let text): quoted(text)
        case .int(let number): String(number)
        case .uint(let number): String(number)
        case .bool(let flag): flag ? "true" : "false"
        case .strings(let texts): "[" + texts.map(quoted).joined(separator: ",") + "]"
        }
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
                out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
