import ArgumentParser
import Foundation

/// Prints `sdlab: message` on stderr and gives the exit code to throw.
func failure(_ message: String, code: Int32) -> ExitCode {
    FileHandle.standardError.write(Data("sdlab: \(message)\n".utf8))
    return ExitCode(code)
}

/// Progress and notes for a person, on stderr, so stdout stays parseable.
func note(_ message: String) {
    FileHandle.standardError.write(Data("\(message)\n".utf8))
}

/// Writes to stdout at once, even when it is a pipe (a parent may be waiting for the line).
func emitLine(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
