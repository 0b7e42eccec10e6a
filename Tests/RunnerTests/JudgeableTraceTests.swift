import DeviceContract
import Testing

@testable import Runner

/// A trace the run cannot be judged by: one cut short, or one another process wrote.
@Suite struct JudgeableTraceTests {
    static func event(_ proc: String, _ event: String, _ fields: [String: TraceValue] = [:]) -> TraceEvent {
        TraceEvent(t: 1, proc: proc, event: event, fields: fields)
    }

    @Test func aTraceOnlyLaunchedProcessesWroteIsJudgeable() {
        let events = [Self.event("mail", "launched", ["pid": 10]), Self.event("mail", "launched", ["pid": 12])]
        #expect(ScenarioRun.strangerInTrace(events, launched: [10, 12]) == nil)
    }

    @Test func aLaunchByAProcessTheRunnerDidNotStartIsNamed() {
        let events = [Self.event("mail", "launched", ["pid": 10]), Self.event("mail", "launched", ["pid": 99])]
        #expect(
            ScenarioRun.strangerInTrace(events, launched: [10])
                == "mail's trace was written by PID 99, a process the runner did not launch; the run cannot be judged")
    }

    /// A launch the runner refused (the app left its process group) wrote its line and was stopped.
    @Test func aLaunchThatFailedMayHaveWrittenItsLine() {
        let events = [Self.event("mail", "launched", ["pid": 77])]
        #expect(ScenarioRun.strangerInTrace(events, launched: [], failedLaunches: ["mail": 1]) == nil)
        #expect(ScenarioRun.strangerInTrace(events, launched: [], failedLaunches: ["notes": 1]) != nil)
    }

    @Test func aWriteFailureNamesTheFileAndTheError() {
        let failed = Self.event(
            "hub", "write-failed", ["path": "/r/trace/hub.jsonl", "error": "File too large (EFBIG)"])
        #expect(
            failed.writeFailure
                == "hub could not write /r/trace/hub.jsonl: File too large (EFBIG); the run cannot be judged")
        #expect(Self.event("hub", "posted").writeFailure == nil)
    }
}
