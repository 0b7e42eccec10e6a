import Foundation
import Testing

@testable import LeakScan

/// GMime and libarchive are loaded when first needed; when they cannot be, a message and an
/// archive are problems that name the library and the loader's reason, so the scan that meets
/// them is incomplete.
@Suite struct FormatLibraryLoadingTests {
    /// Set in the child process this test starts, to the file it writes what it read to.
    static let reportVariable = "SDLAB_FORMAT_LIBRARIES_REPORT"

    /// A process of these tests whose loader finds, first on its path, files named as the
    /// libraries that are not libraries: the readers' problems in it.
    @Test func aLibraryThatCannotBeLoadedIsAProblemNamingIt() throws {
        if let report = ProcessInfo.processInfo.environment[Self.reportVariable] {
            try Self.writeProblems(to: report)
            return
        }
        let folder = try ScratchContainer()
        for library in ["libgmime-3.0.so.0", "libarchive.so.13"] {
            try folder.write(Array("not a library".utf8), to: "libraries/" + library)
        }
        let report = folder.path("report.txt")
        let status = try runThisTest(
            environment: ["LD_LIBRARY_PATH": folder.path("libraries"), Self.reportVariable: report])
        #expect(status == 0)
        let lines = try String(contentsOfFile: report, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(lines)")
        let gmime = "a mail message was not read: libgmime-3.0.so.0 could not be loaded: "
        let libarchive = "a tar archive was not read: libarchive.so.13 could not be loaded: "
        #expect(lines.first?.hasPrefix(gmime) == true, "\(lines)")
        #expect(lines.last?.hasPrefix(libarchive) == true, "\(lines)")
        // dlerror's reason names the file it found.
        #expect(lines.allSatisfy { $0.contains(folder.path("libraries")) }, "\(lines)")
    }

    /// In the child: the problems of a message and of an archive, one a line.
    private static func writeProblems(to report: String) throws {
        let message = Array("Subject: notes\n\nbody\n".utf8)
        let tar =
            Array(repeating: 0x61, count: 100) + Array(repeating: 0, count: 157) + Array("ustar".utf8)
            + Array(repeating: 0, count: 250)
        let problems = [reading(message, with: MIMEMessage.read), reading(tar, with: Archive.read)]
            .flatMap { $0?.problems ?? ["nothing read"] }
        try problems.joined(separator: "\n").write(toFile: report, atomically: true, encoding: .utf8)
    }

    /// Runs this test alone in a new process of the test program with `environment` added: its
    /// exit status, within a minute (killed after).
    private func runThisTest(environment: [String: String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = [
            "--testing-library", "swift-testing", "--filter",
            "FormatLibraryLoadingTests/aLibraryThatCannotBeLoadedIsAProblemNamingIt",
        ]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        try process.run()
        if ended.wait(timeout: .now() + 60) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            _ = ended.wait(timeout: .now() + 10)
            Issue.record("the test process did not end within a minute")
        }
        return process.terminationStatus
    }
}
