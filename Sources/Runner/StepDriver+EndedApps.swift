import DeviceProcesses
import Foundation
import Scenario

// Apps whose process ended though no step ended it: noticed before each step; the run cannot be judged.

extension StepDriver {
    /// Notices every app whose process ended though no step ended it (it exited, crashed, or
    /// was killed from outside the scenario): it is not running any more, so a `launch` starts
    /// it again, and the run cannot be judged (`endedOnTheirOwn`). Called before every step and
    /// at the end of the run; returns what to say under `kind`, the step about to run.
    public func noticeEndedApps(before kind: StepKind? = nil) -> [String] {
        var notes: [String] = []
        for (name, app) in running.sorted(by: { $0.key < $1.key })
        where !app.process.isRunning || (app.answering != app.process && !app.answering.isRunning) {
            // Its number is ours until it is reaped: what it left in its group goes first.
            app.process.signalGroup(SIGKILL)
            let how = app.process.exitStatus(timeout: .seconds(5))
            HookRecord.stopLeftover(in: app.container)
            running[name] = nil
            ended[name] = app.busName
            frozen[name] = nil
            fleet.processEnded(name)
            endedOnTheirOwn.append((name, how))
            let ending = how.map { " (\($0))" } ?? ""
            if case .lifecycle(.launch, let apps)? = kind, apps.contains(name) {
                notes.append(
                    "\(name) was not running: its process had ended\(ending) though no step ended it; launch started"
                        + " it again (a cold start)")
            } else {
                notes.append("\(name)'s process ended\(ending) though no step ended it: it is not running now")
            }
        }
        return notes
    }

    /// Why the run cannot be judged when an app's process ended on its own; nil when none did.
    public var appsEndedOnTheirOwn: String? {
        guard !endedOnTheirOwn.isEmpty else { return nil }
        return endedOnTheirOwn.map { app, how in
            "\(app)'s process ended\(how.map { " (\($0))" } ?? "") after it was ready, though no step ended it"
        }.joined(separator: "; ") + "; the run cannot be judged"
    }
}
