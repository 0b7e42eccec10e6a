// swift-format-ignore-file: AlwaysUseLowerCamelCase

import Foundation
import Synchronization

// The SDK's logging functions, which the vendor's integration sample calls in every delegate
// callback. Each call writes one line to the app's log (its standard error, which the device keeps,
// capped, as the app's log file), with its level and where it was called from.

/// Logs an error.
public func AWLogError(_ input: String, function: String = #function, file: String = #file, line: UInt = #line) {
    AWLogLine.write(.error, input, file: file, line: line, function: function)
}

/// Logs a warning.
public func AWLogWarning(_ input: String, function: String = #function, file: String = #file, line: UInt = #line) {
    AWLogLine.write(.warning, input, file: file, line: line, function: function)
}

/// Logs information.
public func AWLogInfo(_ input: String, function: String = #function, file: String = #file, line: UInt = #line) {
    AWLogLine.write(.info, input, file: file, line: line, function: function)
}

/// Logs a detail.
public func AWLogVerbose(_ input: String, function: String = #function, file: String = #file, line: UInt = #line) {
    AWLogLine.write(.verbose, input, file: file, line: line, function: function)
}

/// Logs a debugging detail.
public func AWLogDebug(_ input: String, function: String = #function, file: String = #file, line: UInt = #line) {
    AWLogLine.write(.debug, input, file: file, line: line, function: function)
}

/// One log line: `AWSDK LEVEL File.swift:LINE function: message`, a message's own line breaks
/// written as `\n` so that a line of the log is a call.
enum AWLogLine {
    enum Level: String {
        case error = "ERROR", warning = "WARNING", info = "INFO", verbose = "VERBOSE", debug = "DEBUG"
    }

    /// Whole lines only, whichever threads log at once.
    private static let writing = Mutex(())

    static func text(_ level: Level, _ message: String, file: String, line: UInt, function: String) -> String {
        let name = file.split(separator: "/").last.map(String.init) ?? file
        let body = message.trimmingCharacters(in: .newlines).replacingOccurrences(of: "\n", with: "\\n")
        return "AWSDK \(level.rawValue) \(name):\(line) \(function): \(body)\n"
    }

    static func write(_ level: Level, _ message: String, file: String, line: UInt, function: String) {
        let data = Data(text(level, message, file: file, line: line, function: function).utf8)
        // A log that cannot be written is not the app's failure.
        writing.withLock { _ in try? FileHandle.standardError.write(contentsOf: data) }
    }
}
