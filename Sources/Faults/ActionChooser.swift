import Scenario
import SharedDevice

/// Picks the random actions of a fault sequence: mostly session changes, app lifecycle,
/// writes and faults, each one the device can take at that point.
struct ActionChooser {
    let base: Scenario
    var generator: SeededGenerator
    var focus = AppFocus()

    private var apps: [String] { base.apps.map(\.name) }
    private var msalApps: [String] { base.apps.filter { $0.sdk.listensToPosts }.map(\.name) }
    private var users: [String] { base.users.filter { $0.user.role == .user }.map(\.user.name) }
    private var stagingUsers: [String] { base.users.filter { $0.user.role == .staging }.map(\.user.name) }

    /// Enrolled by the first staging user, checked out by the first user, every app launched.
    var opening: [StepKind] {
        var steps: [StepKind] = []
        if let staging = stagingUsers.first { steps.append(.enroll(user: staging, password: nil)) }
        if let user = users.first { steps.append(.checkout(user: user, password: nil)) }
        return steps + apps.map { .lifecycle(.launch, apps: [$0]) }
    }

    /// About one action in six is a checkpoint.
    mutating func checkpointNow() -> Bool { Int.random(in: 0..<6, using: &generator) == 0 }

    /// A step the device can take now; nil if none is found.
    mutating func step(on device: SimulatedDevice) -> StepKind? {
        for _ in 0..<100 {
            guard let kind = candidate(on: device) else { continue }
            var trial = device
            if trial.apply(kind) != .notApplicable { return kind }
        }
        return nil
    }

    /// nil when the choice needs what the scenario does not have (an MSAL app, a user).
    private mutating func candidate(on device: SimulatedDevice) -> StepKind? {
        let weighted: [(Int, Choice)] = [
            (device.hub.session.state == .unenrolled ? 30 : 1, .enroll), (12, .checkout), (10, .checkin),
            (3, .removeAccount), (1, .wipe), (2, .lock), (3, .unlock), (3, .network), (4, .signin), (4, .signout),
            (6, .lifecycle(.launch)), (3, .lifecycle(.terminate)), (4, .lifecycle(.crash)),
            (8, .lifecycle(.foreground)),
            (5, .lifecycle(.background)), (3, .lifecycle(.suspend)), (4, .lifecycle(.resume)), (8, .write), (4, .post),
            (device.hubRunning ? 2 : 0, .hubCrash), (device.hubRunning ? 0 : 8, .hubRestart),
        ]
        var roll = Int.random(in: 0..<weighted.map(\.0).reduce(0, +), using: &generator)
        let choice = weighted.first { weight, _ in
            roll -= weight
            return roll < 0
        }!.1
        return make(choice, online: device.hub.online)
    }

    private enum Choice {
        case enroll, checkout, checkin, removeAccount, wipe, lock, unlock, network, signin, signout, write, post
        case lifecycle(AppLifecycle.Action)
        case hubCrash, hubRestart
    }

    /// Mostly in the Hub app, which takes the front; now and then from the console.
    private mutating func origin() -> StepKind.Origin {
        Int.random(in: 0..<4, using: &generator) == 0 ? .console : .hub
    }

    private mutating func make(_ choice: Choice, online: Bool) -> StepKind? {
        switch choice {
        case .enroll: pick(stagingUsers + users).map { .enroll(user: $0, password: nil) }
        case .checkout: pick(users + stagingUsers).map { .checkout(user: $0, password: password(), from: origin()) }
        case .checkin: .checkin(from: origin())
        case .removeAccount: .removeAccount
        case .wipe: .wipe
        case .lock: .lock
        case .unlock: pick(users).map { .unlock(app: nil, user: $0, password: password()) }
        case .network: .network(online: !online)
        case .signin:
            pickApp(msalApps).flatMap { app in pick(users).map { .signin(app: app, user: $0, password: password()) } }
        case .signout: pickApp(msalApps).map { .signout(app: $0) }
        case .lifecycle(let action): pickApp(apps).map { .lifecycle(action, apps: [$0]) }
        case .write:
            pickApp(apps).map {
                .write(app: $0, kind: pick(RecordKind.allCases)!, count: Int.random(in: 1...3, using: &generator))
            }
        case .post:
            .post(
                name: Int.random(in: 0..<5, using: &generator) == 0
                    ? "SOME_OTHER_NOTIFICATION" : pick(SDKKind.allCases.compactMap(\.announcement))!)
        case .hubCrash: .hub(.crash)
        case .hubRestart: .hub(.restart)
        }
    }

    /// Mostly the user's own password (nil), now and then a wrong one.
    private mutating func password() -> String? {
        Int.random(in: 0..<8, using: &generator) == 0 ? "not-the-password" : nil
    }

    private mutating func pick<T>(_ items: [T]) -> T? { items.randomElement(using: &generator) }

    /// One of `candidates` as the focus says: a focused app `AppFocus.focusedShare` percent of
    /// the time (when both kinds are among them), each by its weight.
    private mutating func pickApp(_ candidates: [String]) -> String? {
        let weighted = candidates.filter { focus.weight(of: $0) > 0 }
        let focused = weighted.filter(focus.focused.contains)
        let others = weighted.filter { !focus.focused.contains($0) }
        let group =
            if focused.isEmpty || others.isEmpty { weighted } else {
                Int.random(in: 0..<100, using: &generator) < AppFocus.focusedShare ? focused : others
            }
        return pickWeighted(group)
    }

    /// With equal weights, the same draw as `randomElement`, so a seed without weights gives
    /// the same sequence as before they existed.
    private mutating func pickWeighted(_ apps: [String]) -> String? {
        let total = apps.reduce(0) { $0 + focus.weight(of: $1) }
        guard total > 0 else { return nil }
        var roll = Int.random(in: 0..<total, using: &generator)
        return apps.first { app in
            roll -= focus.weight(of: app)
            return roll < 0
        }
    }
}
