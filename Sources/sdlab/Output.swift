import ArgumentParser
import DeviceProcesses
import Foundation
import RunResults
import Synchronization

/// Prints `sdlab: message` on stderr and gives the exit code to throw. What a person reads
/// shows control characters escaped (`VisibleText`), its line breaks kept.
func failure(_ message: String, code: Int32) -> ExitCode {
    Output.write("sdlab: \(VisibleText.escaped(message, keepingLineBreaks: true))\n", to: STDERR_FILENO)
    return ExitCode(code)
}

/// Progress and notes for a person, on stderr, so stdout stays parseable.
func note(_ message: String) {
    Output.write("\(VisibleText.escaped(message, keepingLineBreaks: true))\n", to: STDERR_FILENO)
}

/// Writes to stdout at once, even when it is a pipe (a parent may be waiting for the line).
func emitLine(_ line: String) {
    Output.write(VisibleText.escaped(line, keepingLineBreaks: true) + "\n", to: STDOUT_FILENO)
}

/// Writing what sdlab prints, by the system call: a write that fails (a full disk, a closed
/// pipe, a closed stdout) is remembered, never a crash, and the command then ends with exit 3
/// whatever it found (`Output.failureOnExit`): a result nobody could read is no result.
enum Output {
    private static let failed = Mutex<String?>(nil)

    /// Before anything is printed: a broken pipe or a file past `ulimit -f` becomes an error of
    /// `write` rather than a signal that kills sdlab (children get default signal handling back
    /// at spawn), and a
    /// standard descriptor that is closed is held by /dev/null, so that no file sdlab opens
    /// later takes its number; printing to it is then a failure.
    static func prepare() {
        signal(SIGPIPE, SIG_IGN)
        signal(SIGXFSZ, SIG_IGN)
        for fd in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(fd, F_GETFD) < 0 {
            let null = open("/dev/null", O_RDWR)
            if null >= 0, null != fd {
                dup2(null, fd)
                close(null)
            }
            if fd != STDIN_FILENO { note(fd, "it was closed") }
        }
    }

    static func write(_ text: String, to fd: Int32) { write(Data(text.utf8), to: fd) }

    static func write(_ data: Data, to fd: Int32) {
        if fd == STDOUT_FILENO, failed.withLock({ $0 != nil }) { return }
        var rest = data[...]
        while !rest.isEmpty {
            let written = rest.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return note(fd, errorText()) }
            rest = rest.dropFirst(written)
        }
    }

    /// The first failure to write stdout or stderr.
    private static func note(_ fd: Int32, _ why: String) {
        let name = fd == STDOUT_FILENO ? "standard output" : "standard error"
        failed.withLock { $0 = $0 ?? "cannot write to \(name): \(why)" }
    }

    /// Why the command must end with exit 3, if printing failed.
    static var failureOnExit: String? { failed.withLock { $0 } }
}
