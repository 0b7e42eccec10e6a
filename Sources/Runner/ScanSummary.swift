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
        for name in driver.running.keys.sorted() where driver.fleet.apps[name]?.state != .suspended {
            guard let snapshot = try? await driver.client(name).snapshot() else { continue }
            let exposed = snapshot.exposed(currentUser: currentUser)
            if !exposed.isEmpty { apps[name, default: Findings()].exposed = exposed }
        }
    }

    /// `app: leaks 3: cou1 plain ×3 (documents/cou1/…)`, a line per app and finding kind, in name order.
    public var lines: [String] {
        apps.keys.sorted().flatMap { app -> [String] in
            let found = apps[app]!
            var lines: [String] = []
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
