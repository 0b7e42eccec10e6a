import Testing

@testable import AWSDK

@Suite struct AWLogLineTests {
    /// A log line per call, with its level and where it came from; a message's line breaks
    /// stay inside its line.
    @Test func aLogLineSaysItsLevelAndPlace() {
        let line = AWLogLine.text(
            .warning, "profiles:\nnone\n", file: "/src/App/AppDelegate.swift", line: 42, function: "start()")
        #expect(line == "AWSDK WARNING AppDelegate.swift:42 start(): profiles:\\nnone\n")
    }
}
