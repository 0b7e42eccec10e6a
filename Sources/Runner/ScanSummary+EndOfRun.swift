import DeviceContract
import DeviceLaunch
import DeviceProcesses
import HubFiles
import LeakScan
import RunResults

extension ScanSummary {
    /// How long the end of a run waits for the apps' snapshots, all of them together.
    static let snapshotBound: Duration = .seconds(30)

    /// The scan at the end of a run: the containers read, each app's snapshot asked for.
    init(of directory: String, driver: StepDriver) async {
        self.init()
        currentUser = (try? StateFile(path: RunFolder.hubState(in: directory)).load())?.model.session.user
        let findings = LeakScanner(
            containersFolder: RunFolder.containers(in: directory), outOfScope: driver.scenario.scanSkips
        ).scan()
        (unreadable, outOfScope, notes) = (findings.unreadable, findings.outOfScope, findings.notes)
        for app in driver.scenario.apps {
            let judged = LeakScanner.judge(
                findings.filter { $0.app == app.name }, currentUser: currentUser, cleanup: app.cleanup)
            guard !judged.leaks.isEmpty || !judged.retained.isEmpty else { continue }
            apps[app.name] = Findings(leaks: judged.leaks, retained: judged.retained)
        }
        // All at once, so a bus that hangs costs the bound once, not once per app.
        let awake = driver.running.keys.filter { driver.fleet.apps[$0]?.state != .suspended }
        let answers = await withTaskGroup(of: SnapshotAnswer.self) { group in
            for name in awake {
                guard let app = try? driver.client(name, timeout: Self.snapshotBound) else { continue }
                group.addTask {
                    do { return SnapshotAnswer(app: name, snapshot: try await app.snapshot()) } catch let gone
                        as AppClient.AppGone
                    {
                        return SnapshotAnswer(app: name, failure: gone.description)
                    } catch {
                        return SnapshotAnswer(app: name, failure: "no snapshot within \(Self.snapshotBound) (\(error))")
                    }
                }
            }
            var answers: [SnapshotAnswer] = []
            for await answer in group { answers.append(answer) }
            return answers
        }
        for answer in answers {
            if let snapshot = answer.snapshot {
                let exposed = snapshot.exposed(currentUser: currentUser)
                if !exposed.isEmpty { apps[answer.app, default: Findings()].exposed = exposed }
            } else {
                unanswered[answer.app] = answer.failure
            }
        }
    }

    /// One app's end-of-run snapshot, or why there is none. (Not a tuple holding a `Result`:
    /// the optimised build corrupted that task group's results, and every release run crashed.)
    private struct SnapshotAnswer: Sendable {
        var app: String
        var snapshot: AppSnapshot?
        var failure: String?
    }
}
