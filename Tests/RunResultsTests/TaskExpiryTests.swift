import DeviceContract
import RunResults
import Testing

/// When an app's expiration handlers ran, counted from its latest entry into the background.
@Suite struct TaskExpiryTests {
    static func event(_ t: UInt64, _ name: TraceName, proc: String = "mail") -> TraceEvent {
        TraceEvent(t: t * 1_000_000, proc: proc, event: name)
    }

    @Test func theHandlersAreCountedFromTheLatestEntryIntoTheBackground() {
        let first = [Self.event(100, .background), Self.event(30_100, .backgroundTasksExpired)]
        #expect(TaskExpiry.latest(of: "mail", in: first) == .seconds(30))
        // Another app's lines, and lines before the latest entry, do not count.
        let again = first + [Self.event(40_000, .foreground), Self.event(50_000, .background)]
        #expect(TaskExpiry.latest(of: "mail", in: again) == nil)
        let resumed = again + [Self.event(60_000, .resumed), Self.event(62_000, .backgroundTasksExpired)]
        #expect(TaskExpiry.latest(of: "mail", in: resumed) == .seconds(2))
        #expect(TaskExpiry.latest(of: "notes", in: resumed) == nil)
        #expect(TaskExpiry.latest(of: "mail", in: [Self.event(1, .backgroundTasksExpired)]) == nil)
    }
}
