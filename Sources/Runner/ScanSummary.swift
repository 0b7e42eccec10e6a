import DeviceContract
import Foundation
import Hub
import LeakScan
import SharedDevice

/// What the leak scanner finds at the end of a scenario, per app: leaks (another user's data
/// the app's cleanup does not declare it keeps, readable on disk), retained (what it declares
/// it keeps) and exposed (what the app displays of other users), each by user, kind and file.
public struct ScanSummary: Sendable, Equatable {
    public struct Findings: Sendable, Equatable {
        public var leaks: [LeakScanner.Finding] = []
        public var retained: [LeakScanner.Finding] = []
        public var exposed: [Canary] = []
    }

    /// The hub's user at the end (nil: none).
    public var currentUser: String?
    /// By app.
    public var apps: [String: Findings] = [:]
    /// Apps that did not answer for what they show (a hung bus, a hung app), and why: their
    /// exposure is unknown, not none.
    public var unanswered: [String: String] = [:]

    /// How long the end of a run waits for the apps' snapshots, all of them together.
    static let snapshotBound: Duration = .seconds(30)

    public init() {}

    init(of directory: String, driver: StepDriver) async {
        currentUser = (try? StateFile(path: directory + "/" + RunningDevice.hubStateFile).load())?.model.session.user
        let findings = LeakScanner(containersFolder: directory + "/containers").scan()
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

    /// `app: leaks 3: cou1 plain ×3 (documents/cou1/…)`, a line per app and finding kind, in name order.
    public var lines: [String] {
        Set(apps.keys).union(unanswered.keys).sorted().flatMap { app -> [String] in
            let unknown = unanswered[app].map {
                ["\(app): exposed unknown: \($0)"]
            }
            guard let found = apps[app] else { return unknown ?? [] }
            var lines: [String] = unknown ?? []
            if !found.leaks.isEmpty { lines.append("\(app): leaks \(found.leaks.count): \(found.leaks.described)") }
            if !found.retained.isEmpty {
                lines.append("\(app): retained \(found.retained.count): \(found.retained.described)")
            }
            if !found.exposed.isEmpty {
                let byUser = Dictionary(grouping: found.exposed, by: \.user)
                lines.append(
                    "\(app): exposed \(found.exposed.count) on screen: "
                        + byUser.keys.sorted().map { "\($0) ×\(byUser[$0]!.count)" }.joined(separator: ", "))
            }
            return lines
        }
    }
}
