import Scenario
import SharedDevice

/// A random sequence of session changes and faults on a scenario's device, users and apps,
/// the same for the same seed. `scenario()` turns it into steps the real device can take,
/// with the errors and beliefs the domain predicts checked at checkpoints, and at the end the
/// invariants: after settling and bringing each app to the foreground every app acts for the
/// hub's user and shows no other user's record.
public struct FaultSequence: Sendable {
    public enum Action: Equatable, Sendable {
        /// A step; its `error:` is the simulation's to give.
        case step(StepKind)
        /// Settle, then check the hub and every app against the simulation.
        case checkpoint
    }

    /// The device, users and apps (its steps are not used).
    public let base: Scenario
    public let seed: UInt64
    public var actions: [Action]

    public init(base: Scenario, seed: UInt64, actions: [Action]) {
        self.base = base
        self.seed = seed
        self.actions = actions
    }

    /// Enrollment, a first check-out and every app launched, then `length` random actions
    /// that the device can take at that point, those that concern an app picking it as
    /// `focus` says.
    public static func random(base: Scenario, seed: UInt64, length: Int, focus: AppFocus = AppFocus()) -> FaultSequence
    {
        var chooser = ActionChooser(base: base, generator: SeededGenerator(state: seed), focus: focus)
        var device = SimulatedDevice(base)
        var actions: [Action] = []
        let start = chooser.opening.map(Action.step)
        for case .step(let kind) in start { _ = device.apply(kind) }
        while actions.count < length {
            if chooser.checkpointNow() {
                actions.append(.checkpoint)
                continue
            }
            guard let kind = chooser.step(on: device) else { break }
            _ = device.apply(kind)
            actions.append(.step(kind))
        }
        return FaultSequence(base: base, seed: seed, actions: start + actions)
    }

    /// The sequence as a scenario, and the invariants the domain itself broke on the way.
    /// Actions the device can no longer take (once others were removed in shrinking) are left out.
    public func scenario() -> (scenario: Scenario, violations: [String]) {
        let built = build()
        return (built.scenario, built.failures.map(\.text))
    }

    /// The sequence as a scenario, and each invariant the domain broke at the step after which it broke.
    public func build() -> BuiltScenario {
        var builder = StepBuilder(device: SimulatedDevice(base))
        for action in actions {
            switch action {
            case .step(let kind): builder.take(kind)
            case .checkpoint: builder.checkpoint()
            }
        }
        builder.finish()
        return builder.built(from: base, name: "Fault sequence \(Self.seedText(seed)) (\(actions.count) actions)")
    }

    /// How a seed is printed and read back: `0x` and 16 hex digits.
    public static func seedText(_ seed: UInt64) -> String {
        let digits = String(seed, radix: 16)
        return "0x" + String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The fault steps among the actions, by the name a summary gives them.
    public var faults: [String: Int] {
        var counts: [String: Int] = [:]
        for case .step(let kind) in actions { if let fault = kind.faultName { counts[fault, default: 0] += 1 } }
        return counts
    }
}

extension StepKind {
    /// The fault this step injects, if it is one.
    var faultName: String? {
        switch self {
        case .lifecycle(.crash, _): "app crashes"
        case .lifecycle(.terminate, _): "app terminations"
        case .lifecycle(.suspend, _): "suspensions"
        case .hub(.crash): "hub crashes"
        case .hub(.restart): "hub restarts"
        case .network(online: false): "offline periods"
        case .post(let name) where SDKKind.allCases.contains(where: { $0.announcement == name }): "spoofed posts"
        case .checkout, .checkin, .signin, .signout, .removeAccount, .wipe: "session changes"
        default: nil
        }
    }

    /// Whether the real device must settle before this step for the step to meet the same
    /// device as the simulation: a step that stops an app, changes the session without a post,
    /// or takes the hub down would otherwise race checks still under way. Writes, posts,
    /// posting session changes and killing an app may race them; they meet the same outcome.
    var needsSettledDevice: Bool {
        switch self {
        case .write, .post, .checkin, .signout, .wipe, .lifecycle(.crash, _), .lifecycle(.terminate, _),
            .settle, .wait, .expect:
            false
        default: true
        }
    }
}

/// A sequence turned into a scenario, with the invariants the domain broke on the way.
public struct BuiltScenario: Sendable {
    public var scenario: Scenario
    public var failures: [SequenceFailure]
    /// The checkpoint each `expect` step (by index) stands for.
    public var checkpoints: [Int: Int]
    /// Where the end begins that brings every app to the front before the last checkpoint.
    public var finishStart: Int?
}

/// Turns actions into steps, taking each on the simulated device too.
struct StepBuilder {
    var device: SimulatedDevice
    var steps: [Step] = []
    /// Broken invariants, at the step after which they broke.
    var failures: [SequenceFailure] = []
    var checkpoints: [Int: Int] = [:]
    /// The first step `finish` took.
    var finishStart: Int?
    static let location = Location(file: "fault-sequence", line: 0, column: 0)

    mutating func take(_ kind: StepKind) {
        var next = device
        let outcome = next.apply(kind)
        guard outcome != .notApplicable else { return }
        if kind.needsSettledDevice { settle() }
        let error: DeviceError? = if case .refused(let error) = outcome { error } else { nil }
        steps.append(Step(location: Self.location, error: error, kind: kind))
        noteViolations(since: device.violations.count, in: next)
        device = next
    }

    /// The violations of `next` from index `start` on, at the last step.
    private mutating func noteViolations(since start: Int, in next: SimulatedDevice) {
        failures += next.violations[start...].map { SequenceFailure(step: steps.count - 1, text: $0) }
    }

    func built(from base: Scenario, name: String) -> BuiltScenario {
        var scenario = base
        scenario.name = name
        scenario.steps = steps
        // The simulation keeps no time: an app sent to the background is suspended at once
        // there, so it is on the real device too.
        scenario.device.backgroundTime = .immediate
        scenario.device.androidFreezeAfter = .zero
        return BuiltScenario(scenario: scenario, failures: failures, checkpoints: checkpoints, finishStart: finishStart)
    }

    mutating func settle() {
        guard let last = steps.last else { return }  // nothing has run yet
        if case .settle = last.kind { return }
        steps.append(Step(location: Self.location, kind: .settle(nil)))
        device.settled()
    }

    /// Settles, then expects what the simulation believes: the hub's session, each app's
    /// state, whom each running app acts for, and no leak in one that handled the latest
    /// change. `targets` (the hub, apps) limits it; `id` names the checkpoint.
    mutating func checkpoint(_ targets: Set<ExpectTarget>? = nil, id: Int? = nil) {
        let all = [ExpectTarget.hub] + device.appNames.map(ExpectTarget.app)
        let chosen = all.filter { targets?.contains($0) ?? true }
        guard !chosen.isEmpty else { return }
        settle()
        checkpoints[steps.count] = id ?? checkpoints.count
        steps.append(Step(location: Self.location, kind: .expect(chosen.map(predicted))))
    }

    /// What the simulation believes of the hub or an app now.
    private func predicted(_ target: ExpectTarget) -> Expectation {
        guard case .app(let target) = target else {
            return expect(
                .hub,
                [
                    .hubState(device.hub.session.state), .user(device.hub.session.user),
                    .account(device.hub.currentAccount), .generation(device.hub.session.generation),
                ])
        }
        let app = device.apps[target]!
        let running = device.state(of: target) != .notRunning
        var checks: [ExpectField.Check] = [
            .state(app.blocked && running ? .blocked : ExpectField.AppState(device.state(of: target)))
        ]
        if running, !app.userUnknown {
            checks.append(.user(app.model.user))
            if device.hasHandledLatestChange(target), device.followsTheWorker(target) { checks.append(.leaks(0)) }
        }
        return expect(.app(target), checks)
    }

    /// Brings every app to the front, settles and expects the invariants.
    mutating func finish() {
        finishStart = steps.count
        bringToFront(device.appNames)
        settle()
        let before = device.violations.count
        device.checkAgreement()
        checkpoints[steps.count] = checkpoints.count
        steps.append(Step(location: Self.location, kind: .expect(finalExpectations())))
        noteViolations(since: before, in: device)
    }

    /// The hub's session and MSAL's account; each app acting for the user its SDK follows, with
    /// no one else's data left where that user is the worker.
    private func finalExpectations() -> [Expectation] {
        let hub = device.hub
        let hubChecks: [ExpectField.Check] = [
            .user(hub.session.user), .account(hub.currentAccount), .generation(hub.session.generation),
        ]
        return [expect(.hub, hubChecks)]
            + device.appNames.map { app in
                let leaks: [ExpectField.Check] = device.followsTheWorker(app) ? [.leaks(0)] : []
                return expect(.app(app), [.user(device.followedUser(of: app))] + leaks)
            }
    }

    /// The end of a shrunk sequence: the apps among `targets` brought to the front, then what
    /// the models predict of `targets` (the invariants too: those apps agree with the hub).
    mutating func finish(only targets: Set<ExpectTarget>, id: Int) {
        let apps = device.appNames.filter { targets.contains(.app($0)) }
        bringToFront(apps)
        settle()
        let before = device.violations.count
        device.checkAgreement(of: apps)
        checkpoint(targets, id: id)
        noteViolations(since: before, in: device)
    }

    /// Brings the hub back if it is down, then each app to the foreground with a check (a
    /// Workspace ONE app that is blocked or never finished its initial check is launched
    /// again: nothing else unblocks it).
    private mutating func bringToFront(_ apps: [String]) {
        if !device.hubRunning { take(.hub(.restart)) }
        for name in apps {
            let app = device.apps[name]!
            switch device.state(of: name) {
            case .notRunning:
                take(.lifecycle(.launch, apps: [name]))
            case _ where app.sdk == .ws1 && (app.blocked || !app.initialised):
                take(.lifecycle(.terminate, apps: [name]))
                take(.lifecycle(.launch, apps: [name]))
            case .foreground:
                take(.lifecycle(.background, apps: [name]))
                take(.lifecycle(.foreground, apps: [name]))
            default:
                take(.lifecycle(.foreground, apps: [name]))
            }
        }
    }

    private func expect(_ target: ExpectTarget, _ checks: [ExpectField.Check]) -> Expectation {
        Expectation(
            target: target, location: Self.location,
            fields: checks.map { ExpectField(location: Self.location, check: $0) })
    }
}

extension ExpectField.AppState {
    init(_ state: AppLifecycle.State) {
        self =
            switch state {
            case .notRunning: .notRunning
            case .foreground: .foreground
            case .background: .background
            case .suspended: .suspended
            }
    }
}

extension FaultSequence {
    /// The device `sdlab fuzz` uses when given no scenario: the default users and one app of
    /// each kind of SDK, lifecycle and cleanup.
    public static let defaultDevice: Scenario = {
        let location = StepBuilder.location
        let apps = [
            AppEntry(name: "mail", sdk: .msal, background: true, cleanup: .wipeAll, location: location),
            AppEntry(name: "notes", sdk: .msal, cleanup: .retainPreferences, location: location),
            AppEntry(name: "scanner", sdk: .msalAndroid, background: true, cleanup: .cacheCommon, location: location),
            AppEntry(name: "inventory", sdk: .ws1, cleanup: .cacheCommon, location: location),
            AppEntry(name: "timesheet", sdk: .ws1, cleanup: .wipeAll, location: location),
        ]
        return Scenario(
            name: "Fault sequences", file: location.file, device: Device(), users: Scenario.defaultUsers,
            apps: apps, steps: [])
    }()
}
