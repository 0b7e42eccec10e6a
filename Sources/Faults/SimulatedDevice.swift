import Scenario
import SharedDevice

/// The whole device as the domain sees it (hub, bus and apps), taking a scenario's steps one
/// at a time, each carried out to its end before the next: `FaultSequence` settles the real
/// device wherever a step could otherwise race what came before. It says how each step ends,
/// what each app then believes, and notes every invariant that breaks.
public struct SimulatedDevice: Sendable {
    public private(set) var hub: HubModel
    public private(set) var hubRunning = true
    public private(set) var fleet: AppFleet
    public private(set) var apps: [String: SimulatedApp]
    /// The apps in the scenario's order.
    public let appNames: [String]
    /// Every invariant broken so far, as a sentence.
    public private(set) var violations: [String] = []
    /// Apps whose leak is already among the violations.
    private var leaking: Set<String> = []
    /// Apps that checked on a post since the device last settled: the runner does not wait
    /// for those checks, so a crash may cut one short.
    private var checkedOnPost: Set<String> = []
    private let users: [String: UserEntry]

    public init(_ scenario: Scenario) {
        hub = HubModel(policy: scenario.device.policy, online: scenario.device.online)
        users = Dictionary(scenario.users.map { ($0.user.name, $0) }) { first, _ in first }
        appNames = scenario.apps.map(\.name)
        fleet = AppFleet(
            Dictionary(
                uniqueKeysWithValues: scenario.apps.map { ($0.name, AppLifecycle(backgroundMode: $0.background)) }))
        apps = Dictionary(
            uniqueKeysWithValues: scenario.apps.map {
                ($0.name, SimulatedApp(name: $0.name, sdk: $0.sdk, backgroundMode: $0.background, policy: $0.cleanup))
            })
    }

    /// How a step ends.
    public enum Outcome: Equatable, Sendable {
        case done
        /// Refused with `dev.sdlab.Error.NAME`.
        case refused(DeviceError)
        /// Not a step this device can take now (an app that is not running or is stopped, the
        /// hub down); nothing changed.
        case notApplicable
    }

    /// Takes one step and checks the invariants after it.
    public mutating func apply(_ kind: StepKind) -> Outcome {
        var next = self
        let outcome = next.carryOut(kind)
        guard outcome != .notApplicable else { return outcome }
        next.checkNoLeakOnceHandled(after: kind)
        self = next
        return outcome
    }

    public func state(of app: String) -> AppLifecycle.State { fleet.apps[app]?.state ?? .notRunning }

    /// Every check under way has finished (the runner's `settle`).
    public mutating func settled() { checkedOnPost = [] }

    /// Running and not stopped: it hears posts and answers the runner.
    public func isAwake(_ app: String) -> Bool { [.foreground, .background].contains(state(of: app)) }

    /// The app has checked since the latest change its SDK follows.
    public func hasHandledLatestChange(_ app: String) -> Bool {
        apps[app].map { $0.seenGeneration == followed(by: $0).generation } ?? false
    }

    /// After settling and bringing every app (of `names`) to the foreground: each acts for
    /// the user its SDK follows.
    public mutating func checkAgreement(of names: [String]? = nil) {
        for name in names ?? appNames {
            guard let app = apps[name], app.model.user != followed(by: app).user else { continue }
            violations.append(
                "\(name) acts for \(app.model.user ?? "none") after settling and coming to the foreground, but "
                    + "its SDK's user is \(followed(by: app).user ?? "none")")
        }
    }

    /// The user the app's SDK follows.
    public func followedUser(of app: String) -> String? { apps[app].flatMap { followed(by: $0).user } }

    /// Whether that user is the Hub's worker, whom the leak scan holds the app's data to: not so
    /// for an MSAL app whose account outlived a check-in under Authenticator.
    public func followsTheWorker(_ app: String) -> Bool { followedUser(of: app) == hub.session.checkedOutUser }

    private func followed(by app: SimulatedApp) -> (user: String?, generation: UInt64) { hub.followed(by: app.sdk) }

    // MARK: - Steps

    private mutating func carryOut(_ kind: StepKind) -> Outcome {
        if let outcome = kind.carriedOut(by: &self) { return outcome }
        if case .expect = kind { return .done }  // it changes nothing
        return .notApplicable  // a `repeat`: sequences are flat
    }

    /// The scenario's user, or nil (as the hub sees a bad password) when `password` is not theirs.
    private func directoryUser(_ name: String, _ password: String?) -> DirectoryUser? {
        guard let entry = users[name], password == nil || password == entry.password else { return nil }
        return entry.user
    }

    private mutating func onHub(_ body: (inout HubModel) throws(DeviceError) -> [HubModel.Effect]) -> Outcome {
        guard hubRunning else { return .notApplicable }
        let before = hub.session.generation
        do {
            let effects = try body(&hub)
            if hub.session.generation < before {
                violations.append("the generation went back from \(before) to \(hub.session.generation)")
            }
            for effect in effects { deliverPost(effect.name) }
            return .done
        } catch {
            return .refused(error)
        }
    }

    private mutating func signIn(in app: String, as user: DirectoryUser?) -> Outcome {
        guard hubRunning, isAwake(app), apps[app]?.sdk.listensToPosts == true, apps[app]?.userUnknown == false else {
            return .notApplicable
        }
        if case .refuse(let refusal)? = apps[app]?.decide(.signIn) { return .refused(refusal.error) }
        let effects: [HubModel.Effect]
        do {
            effects = try hub.signIn(as: user)
        } catch {
            return .refused(error)
        }
        apps[app]?.changedHere(to: user?.name)
        for effect in effects { deliverPost(effect.name) }
        check(app)
        return .done
    }

    /// Not simulated on a personal device, where the sign-out is the app's own (`LocalSignOut`).
    public mutating func signOut(in app: String) -> Outcome {
        guard hubRunning, hub.isShared, isAwake(app), apps[app]?.sdk.listensToPosts == true,
            apps[app]?.userUnknown == false
        else {
            return .notApplicable
        }
        if case .refuse(let refusal)? = apps[app]?.decide(.signOut) { return .refused(refusal.error) }
        guard let account = hub.currentAccount else { return .refused(.noCurrentAccount) }
        let effects: [HubModel.Effect]
        do {
            effects = try hub.signOut(homeAccountID: HubModel.homeAccountID(of: account))
        } catch {
            return .refused(error)
        }
        apps[app]?.changedHere(to: nil)
        for effect in effects { deliverPost(effect.name) }
        check(app)
        return .done
    }

    private mutating func write(_ kind: RecordKind, in app: String) -> Outcome {
        guard isAwake(app), apps[app]?.userUnknown == false else { return .notApplicable }
        if apps[app]?.blocked == true { return .refused(.blocked) }
        guard let user = apps[app]?.model.user else { return .refused(.noUser) }
        if kind == .external {
            // keep-all never cleans up, so nothing makes it forget a key that a lookup racing the
            // next session change (a check on a post is not waited for) may or may not have fetched.
            guard apps[app]?.model.policy != .keepAll,
                case let answer = keyServiceAnswer,
                let outcome = apps[app]?.external.write(as: user, answer: answer)
            else { return .notApplicable }
            guard outcome == .done else { return outcome }
        }
        apps[app]?.wrote(kind, as: user)
        return .done
    }

    /// `GetUserKey` as the hub's model answers it now.
    private var keyServiceAnswer: KeyServiceAnswer {
        guard hubRunning else { return .down }
        var asked = hub  // a first request makes the user's key; the answer is all that matters here
        do throws(DeviceError) {
            return .serves(try asked.externalKey { [] }.user)
        } catch {
            return .refuses(error)
        }
    }

    // MARK: - The bus and the apps

    /// A post of `posted`, the broker's or anyone's: every awake app whose SDK hears that name
    /// checks; a stopped one will once continued.
    private mutating func deliverPost(_ posted: String) {
        for name in appNames where apps[name]?.sdk.announcement == posted {
            if isAwake(name) {
                check(name)
                checkedOnPost.insert(name)
            } else if state(of: name) == .suspended {
                apps[name]?.pendingPost = true
            }
        }
    }

    /// An MSAL check: the broker's answer, or nothing at all while the hub is down.
    private mutating func check(_ name: String) {
        if hubRunning {
            apps[name]?.checked(hub.broker)
            apps[name]?.userUnknown = false  // the launch check finishes what a crash cut short
        }
        let answer = keyServiceAnswer
        apps[name]?.lookUpExternalKey(answer)
    }

    private mutating func detect(_ name: String, _ opportunity: WorkspaceOneSessionRule.Opportunity) {
        let callbacks = apps[name]?.detected(opportunity, session: hubRunning ? hub.session : nil) ?? []
        let answer = keyServiceAnswer
        apps[name]?.lookUpExternalKey(answer)
        let repeated = Dictionary(grouping: callbacks, by: \.kind).filter { $0.value.count > 1 }.keys.map(\.rawValue)
            .sorted()
        if !repeated.isEmpty {
            violations.append(
                "\(name) got more than one \(repeated.joined(separator: ", ")) at one \(opportunity.rawValue)")
        }
    }

    /// A check-in or check-out in the Hub app: it takes the front first.
    private mutating func open(_ origin: StepKind.Origin) {
        guard origin == .hub, hubRunning else { return }
        for (app, effect) in fleet.hubTakesFront() { carryOut(effect, on: app) }
    }

    private mutating func lifecycle(_ action: AppLifecycle.Action, _ name: String) -> Outcome {
        guard apps[name] != nil, let effects = try? fleet.apply(action, to: name) else { return .notApplicable }
        for (app, effect) in effects { carryOut(effect, on: app) }
        return .done
    }

    private mutating func carryOut(_ effect: AppLifecycle.Effect, on name: String) {
        let listens = apps[name]?.sdk.listensToPosts == true
        switch effect {
        case .spawn:
            apps[name]?.spawned()
            if listens { check(name) } else { detect(name, .coldStart) }
        case .continue:
            if apps[name]?.pendingPost == true {
                apps[name]?.pendingPost = false
                check(name)
            }
        case .toldForeground:
            if listens { check(name) } else { detect(name, .returnToForeground) }
        case .toldResumed:
            if apps[name]?.sdk.checksWhenResumed == true { check(name) }
        case .kill:
            apps[name]?.pendingPost = false
            if checkedOnPost.remove(name) != nil { apps[name]?.userUnknown = true }
        case .terminate:
            apps[name]?.pendingPost = false  // it finishes the work in hand first
        case .stop, .toldBackground, .toldTasksExpire:
            break
        }
    }

    // MARK: - Invariants

    /// An app that has handled the latest change shows an attacker no other user's record.
    private mutating func checkNoLeakOnceHandled(after kind: StepKind) {
        for name in appNames
        where hasHandledLatestChange(name) && apps[name]?.recordsUnknown == false && !leaking.contains(name) {
            guard let app = apps[name] else { continue }
            let others = app.records.keys.filter { $0 != followed(by: app).user }.sorted()
            if !others.isEmpty {
                leaking.insert(name)
                violations.append(
                    "after \(kind.title), \(name) has handled the latest session change but holds "
                        + "readable records of \(others.joined(separator: ", "))")
            }
        }
    }
}

/// Each step as the domain's models take it. An app's `unlock` is not simulated: it goes by
/// the hub alike.
extension SimulatedDevice: StepCarrier {
    public mutating func enroll(_ user: String, password: String?) -> Outcome {
        let user = directoryUser(user, password)
        return onHub { hub throws(DeviceError) in
            try hub.enroll(as: user)
            return []
        }
    }

    public mutating func checkOut(_ user: String, password: String?, from origin: StepKind.Origin) -> Outcome {
        let user = directoryUser(user, password)
        open(origin)
        return onHub { hub throws(DeviceError) in try hub.checkOut(as: user) }
    }

    public mutating func checkIn(from origin: StepKind.Origin) -> Outcome {
        open(origin)
        return onHub { hub throws(DeviceError) in try hub.checkIn() }
    }

    public mutating func signIn(in app: String, as user: String, password: String?) -> Outcome {
        signIn(in: app, as: directoryUser(user, password))
    }

    public mutating func removeAccount() -> Outcome {
        onHub { hub throws(DeviceError) in
            try hub.removeAccount()
            return []
        }
    }

    public mutating func lifecycle(_ action: AppLifecycle.Action, of apps: [String]) -> Outcome {
        for name in apps where lifecycle(action, name) == .notApplicable { return .notApplicable }
        return .done
    }

    public mutating func write(_ kind: RecordKind, count: Int, in app: String) -> Outcome { write(kind, in: app) }

    public mutating func network(online: Bool) -> Outcome {
        onHub { hub in
            hub.setOnline(online)
            return []
        }
    }

    public mutating func lock() -> Outcome {
        onHub { hub in
            hub.lock()
            return []
        }
    }

    public mutating func unlock(in app: String?, as user: String, password: String?) -> Outcome {
        guard app == nil else { return .notApplicable }
        let user = directoryUser(user, password)
        return onHub { hub throws(DeviceError) in
            _ = try hub.unlock(as: user)
            return []
        }
    }

    public mutating func wipe() -> Outcome { onHub { hub throws(DeviceError) in try hub.enterpriseWipe() } }

    public mutating func post(_ name: String) -> Outcome {
        deliverPost(name)
        return .done
    }

    /// The hub crashes while it runs and restarts while it is down (a step removed in
    /// shrinking can leave a restart with no crash before it).
    public mutating func hubProcess(_ action: StepKind.HubAction) -> Outcome {
        guard hubRunning == (action == .crash) else { return .notApplicable }
        hubRunning = action == .restart
        return .done
    }

    public mutating func wait(_ duration: Duration) -> Outcome { .done }

    public mutating func settle(within limit: Duration?) -> Outcome {
        settled()
        return .done
    }
}
