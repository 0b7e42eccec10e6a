import Foundation
import SharedDevice
import Testing

@testable import DeviceHost
@testable import UIKit

/// `backgroundTimeRemaining` counts down the time the device gives (Docs/behaviour.md §7):
/// unbounded in the foreground, the grace or the task time less the time spent in the
/// background, unbounded again once no suspension is pending.
@Suite struct BackgroundTimeRemainingTests {
    let start = ContinuousClock.now

    func tasks(_ time: BackgroundTime?) -> HostedBackgroundTasks {
        let tasks = HostedBackgroundTasks()
        tasks.give(time)
        return tasks
    }

    @Test func theGraceCountsDownFromEnteringTheBackground() {
        let tasks = tasks(BackgroundTime(grace: .seconds(5), task: .seconds(30)))
        #expect(tasks.timeRemaining(at: start) == .greatestFiniteMagnitude)
        tasks.enteredBackground(at: start)
        #expect(tasks.timeRemaining(at: start) == 5)
        #expect(tasks.timeRemaining(at: start + .milliseconds(1500)) == 3.5)
        #expect(tasks.timeRemaining(at: start + .seconds(7)) == 0)
        tasks.suspensionCalledOff()
        #expect(tasks.timeRemaining(at: start + .seconds(7)) == .greatestFiniteMagnitude)
    }

    @Test func anOpenTaskGivesTheTaskTimeCountedFromTheSameMoment() {
        let tasks = tasks(BackgroundTime(grace: .seconds(5), task: .seconds(20)))
        tasks.enteredBackground(at: start)
        let id = tasks.begin(name: "save", expirationHandler: nil)
        #expect(tasks.timeRemaining(at: start + .seconds(2)) == 18)
        tasks.end(id)
        #expect(tasks.timeRemaining(at: start + .seconds(2)) == 3)
    }

    @Test func backgroundModeAndNoDeviceAreUnbounded() {
        let running = tasks(nil)
        running.enteredBackground(at: start)
        #expect(running.timeRemaining(at: start + .seconds(60)) == .greatestFiniteMagnitude)
        #expect(HostedBackgroundTasks().timeRemaining() == .greatestFiniteMagnitude)
    }

    @Test func theApplicationReadsTheDevicesCount() {
        #expect(UIApplication.shared.backgroundTimeRemaining == HostedBackgroundTasks.shared.timeRemaining())
    }
}
