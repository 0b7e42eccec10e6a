import Foundation
import Hub
import SharedDevice

/// What the leak scanner finds at the end of a scenario, per app and per user: leaks
/// (readable sensitive, plain or external data of anyone but the current user), retained
/// (their preferences and common data) and exposed (what the app displays of them).
public struct ScanSummary: Sendable, Equatable {
    public struct Counts: Sendable, Equatable {
        public var leaks: [String: Int] = [:]
        public var retained: [String: Int] = [:]
        public var exposed: [String: Int] = [:]
    }

    /// The hub's user at the end (nil: none).
    public var currentUser: String?
    /// By app.
    public var apps: [String: Counts] = [:]

    public init() {}

    init(of directory: String, driver: StepDriver) async {
        currentUser = (try? StateFile(path: directory + "/" + RunningDevice.hubStateFile).load())?.model.session.user
        let findings = LeakScanner(containersFolder: directory + "/containers").scan()
        for finding in LeakScanner.leaks(in: findings, currentUser: currentUser) {
            apps[finding.app, default: Counts()].leaks[finding.canary.user, default: 0] += 1
        }
        for finding in LeakScanner.retained(in: findings, currentUser: currentUser) {
            apps[finding.app, default: Counts()].retained[finding.canary.user, default: 0] += 1
        }
        for name in driver.running.keys.sorted() where driver.fleet.apps[name]?.state != .suspended {
            guard let snapshot = try? await driver.client(name).snapshot() else { continue }
            for canary in snapshot.exposed(currentUser: currentUser) {
                apps[name, default: Counts()].exposed[canary.user, default: 0] += 1
            }
        }
    }

    /// `app: leaks 3 (cou1 3), retained 2 (cou1 2)` for each app with anything, in name order.
    public var lines: [String] {
        apps.keys.sorted().map { app in
            let counts = apps[app]!
            func part(_ name: String, _ byUser: [String: Int]) -> String? {
                guard !byUser.isEmpty else { return nil }
                let total = byUser.values.reduce(0, +)
                return "\(name) \(total) (" + byUser.keys.sorted().map { "\($0) \(byUser[$0]!)" }.joined(separator: ", ") + ")"
            }
            return "\(app): " + [part("leaks", counts.leaks), part("retained", counts.retained), part("exposed", counts.exposed)]
                .compactMap { $0 }.joined(separator: ", ")
        }
    }
}
