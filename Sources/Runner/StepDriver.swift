import DBusKit
import DeviceContract
import DeviceLaunch
import DeviceProcesses
import Foundation
import RunResults
import Scenario
import SharedDevice

/// Carries out a scenario's steps on a started device: each step becomes D-Bus calls or
/// process signals. Which app is in front, and what each lifecycle step does, is the
/// domain's `AppFleet`; this only sends what it says.
public final class StepDriver {
    public let scenario: Scenario
    public let device: RunningDevice
    let connection: Connection
    let sdlab: String
    private(set) var fleet: AppFleet
    private(set) var running: [String: LaunchedApp] = [:]
    /// The unique bus name of each app's process the runner ended, until it is launched again.
    private var ended: [String: String] = [:]
    /// When each app was last continued (SIGCONT), as `Resumed` tells it.
    private var continuedAt: [String: UInt64] = [:]
    /// The PID of every process that answered for an app this driver launched.
    private(set) var launchedPIDs: Set<Int32> = []
    /// Per app, the launches that failed: each may have left a `launched` line of a process
    /// the runner then stopped.
    private(set) var failedLaunches: [String: Int] = [:]
    /// The last snapshot of each app taken before it was stopped: a stopped app cannot answer,
    /// and cannot change either.
    private(set) var frozen: [String: AppSnapshot] = [:]
    /// The device's trace, read as it grows.
    let traces: TraceTail
    /// Each app whose process ended though no step ended it, with how it ended, in the order
    /// noticed: the run cannot be judged (Docs/outputs.md, exit 3).
    private(set) var endedOnTheirOwn: [(app: String, how: ChildProcess.ExitStatus?)] = []
    /// What the apps say of their background tasks, once listened to (at the first step).
    private let taskReports = Mailbox<BackgroundTaskReport>(most: BackgroundTaskReport.most)
    private var taskSubscription: SignalSubscription?

    public init(scenario: Scenario, device: RunningDevice, connection: Connection, sdlab: String) {
        self.scenario = scenario
        self.device = device
        self.connection = connection
        self.sdlab = sdlab
        traces = TraceTail(folder: RunFolder.traceFolder(in: device.directory))
        fleet = AppFleet(
            Dictionary(
                uniqueKeysWithValues: scenario.apps.map {
                    (
                        $0.name,
                        AppLifecycle(backgroundMode: $0.background, backgroundTime: scenario.device.backgroundTime)
                    )
                }))
    }

    /// Told `(done, of)` while a lifecycle step acts on many apps (a fleet launching).
    public var onFleetProgress: @Sendable (Int, Int) -> Void = { _, _ in }

    /// Every process this driver started and still runs.
    public var processes: [ChildProcess] { running.values.map(\.process) }

    public struct StepFailure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs one step (not `expect`, `repeat` or `settle`, which the runner handles). A step
    /// with `error:` must fail with `dev.sdlab.Error.NAME`. Returns what a person should know
    /// of how it went (a launch that found the app running).
    @discardableResult
    public func perform(_ step: Step) async throws -> [String] {
        let notes = launchesOfRunningApps(step.kind) + terminationsOfSuspendedApps(step.kind)
        do {
            try await act(step.kind)
        } catch let error as DBusError {
            guard let expected = step.error else { throw StepFailure(description: error.description) }
            guard error.isDevice(expected) else {
                throw StepFailure(description: "expected error \(expected), got \(error.name)")
            }
            return notes
        }
        if let expected = step.error {
            throw StepFailure(description: "expected error \(expected), but the step succeeded")
        }
        return notes
    }

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

    /// A `launch` of an app that runs brings it to the front, as a tap on its icon does: said,
    /// so that a scenario meant as a cold start is not silently something else.
    private func launchesOfRunningApps(_ kind: StepKind) -> [String] {
        guard case .lifecycle(.launch, let apps) = kind else { return [] }
        return apps.filter { fleet.apps[$0]?.isRunning == true }.map {
            "\($0) was running: launch brought it to the front, as a tap on its icon does (no cold start: terminate it first for one)"
        }
    }

    /// A `terminate` of a suspended app ends it as iOS does, without waking it: said, since no
    /// `terminated` line follows and a post queued for it is lost.
    private func terminationsOfSuspendedApps(_ kind: StepKind) -> [String] {
        guard case .lifecycle(.terminate, let apps) = kind else { return [] }
        return apps.filter { fleet.apps[$0]?.state == .suspended }.map {
            "\($0) was suspended: it was ended without running any code, as iOS ends a suspended app (no"
                + " applicationWillTerminate; a post queued for it is lost)"
        }
    }

    private func act(_ kind: StepKind) async throws {
        switch kind {
        case .enroll(let user, let password):
            try await hub(HubMethod.enroll, [.string(user), .string(password ?? self.password(of: user))])
        case .checkout(let user, let password):
            try await hub(HubMethod.checkOut, [.string(user), .string(password ?? self.password(of: user))])
        case .checkin: try await hub(HubMethod.checkIn)
        case .signin(let app, let user, let password):
            try await usable(app).signIn(user, password: password ?? self.password(of: user))
        case .signout(let app): try await usable(app).signOut()
        case .removeAccount: try await hub(BrokerMethod.removeAccount)
        case .lifecycle(let action, let apps):
            for (index, app) in apps.enumerated() {
                try await lifecycle(action, app)
                if apps.count >= 10 { onFleetProgress(index + 1, apps.count) }
            }
        case .write(let app, let kind, let count): try await usable(app).write(kind, count: count)
        case .network(let online): try await hub(HubMethod.setOnline, [.bool(online)])
        case .lock: try await hub(HubMethod.lock)
        case .unlock(let app, let user, let password):
            let secret = password ?? self.password(of: user)
            if let app {
                try await usable(app).unlock(user, password: secret)
            } else {
                try await hub(HubMethod.unlock, [.string(user), .string(secret)])
            }
        case .wipe: try await hub(HubMethod.enterpriseWipe)
        case .post(let name): try connection.post(name)
        case .hub(let action): try await hubProcess(action)
        case .wait(let duration): try await wait(duration)
        case .settle, .repeat, .expect: break
        }
    }

    /// Carries out the fleet's effects of one lifecycle action, app by app.
    private func lifecycle(_ action: AppLifecycle.Action, _ name: String) async throws {
        let effects: [(app: String, effect: AppLifecycle.Effect)]
        do {
            effects = try fleet.apply(action, to: name, at: now)
        } catch {
            throw StepFailure(description: "\(action.rawValue) \(name): the app is not running")
        }
        for (app, effect) in effects { try await carryOut(effect, on: app) }
        // What the apps said as they went (a background task begun in
        // applicationDidEnterBackground), and a suspension due at once (a grace of 0s).
        try await keepTime()
    }

    /// The descriptors the bus keeps for itself and for the hub, the runner and the guard.
    static let busDescriptorsBesideApps = 16
    /// What the runner opens per app: its stdout pipe and its log's pipe, the fence's watch
    /// (`FenceWatch`), and a pidfd while it waits for it.
    static let runnerDescriptorsPerApp = 4

    /// The bus holds one descriptor per app and the runner a few; both have the runner's limit
    /// of open files (raised to the hard limit at start): past it, an app's launch would fail
    /// with "Too many open files", which says neither what to change nor by how much.
    private func checkOpenFiles(toLaunch name: String) throws {
        guard let limit = openFileLimit() else { return }
        let bus = running.count + 1 + Self.busDescriptorsBesideApps
        // /proc/self/fd is listed only near the limit, not at every launch of a large fleet.
        let appsShare = (running.count + 1) * Self.runnerDescriptorsPerApp
        let runner = appsShare * 2 > limit ? openDescriptorCount() + Self.runnerDescriptorsPerApp : appsShare
        guard max(bus, runner) > limit else { return }
        let (needed, process) = bus >= runner ? (bus, "the device's bus") : (runner, "the runner")
        throw StepFailure(
            description:
                "launch \(name): \(running.count + 1) apps at once need about \(needed) open files in \(process),"
                + " over this machine's limit of \(limit) (`ulimit -Hn`); raise the hard limit to run this fleet")
    }

    /// Returns once the bus has dropped the connection `uniqueName` of a process that ended (at
    /// most 5 s): until then the app's name is still that connection's, and a relaunch right
    /// after a `terminate` or `crash` could not take it.
    private func untilOffTheBus(_ uniqueName: String) async {
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline, (try? await connection.nameOwner(uniqueName)) != nil {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// How many descriptors this process has open.
    private func openDescriptorCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    private func carryOut(_ effect: AppLifecycle.Effect, on name: String) async throws {
        switch effect {
        case .spawn:
            guard let entry = scenario.apps.first(where: { $0.name == name }) else { return }
            try checkOpenFiles(toLaunch: name)
            let spec = AppSpec(
                name: name, sdk: entry.sdk, backgroundMode: entry.background, backgroundTask: entry.backgroundTask,
                backgroundTime: scenario.device.backgroundTime, cleanup: entry.cleanup, executable: entry.executable,
                hookDirectory: scenario.folder, scanSkips: entry.scanSkips)
            if let ended = ended.removeValue(forKey: name) { await untilOffTheBus(ended) }
            let app: LaunchedApp
            do {
                app = try await LaunchedApp.launch(
                    spec, bus: device.bus.address, in: device.directory, connection: connection, sdlab: sdlab)
            } catch {
                failedLaunches[name, default: 0] += 1
                throw error
            }
            running[name] = app
            launchedPIDs.insert(app.answering.pid)
            frozen[name] = nil
        case .stop:
            frozen[name] = try await client(name).snapshot()
            try running[name]?.suspend()
        case .continue:
            continuedAt[name] = TraceLog.now()
            running[name]?.resume()
            frozen[name] = nil
        case .terminate:
            let app = running.removeValue(forKey: name)
            app?.terminate()
            ended[name] = app?.busName
            frozen[name] = nil
        case .kill:
            let app = running.removeValue(forKey: name)
            app?.crash()
            ended[name] = app?.busName
            frozen[name] = nil
        case .toldForeground: try await client(name).foreground()
        case .toldBackground: try await client(name).background()
        case .toldResumed: try await client(name).resumed(continuedAt: continuedAt[name] ?? 0)
        case .toldTasksExpire:
            // An app whose expiration handlers do not return in time is suspended all the same.
            try? await client(name, timeout: Self.expirationBound).expireBackgroundTasks()
        }
    }

    // MARK: - Background time

    /// How long an app's expiration handlers may take before it is suspended regardless.
    static let expirationBound = Duration.seconds(5)

    /// Now, on the clock the domain reckons background time on (the trace's).
    private var now: Duration { .nanoseconds(Int64(TraceLog.now())) }

    /// Carries out what has fallen due (Docs/behaviour.md §7): first what the apps said of
    /// their background tasks, in the order heard, then every suspension whose time has come.
    /// Called before every step, after every lifecycle step, and as `wait` and `settle` pass time.
    public func keepTime() async throws {
        if taskSubscription == nil {
            taskSubscription = try await BackgroundTaskReport.listen(on: connection, into: taskReports)
        }
        for report in taskReports.take() {
            // Only a process this driver launched speaks for an app.
            guard let app = running.first(where: { $0.value.busName == report.sender })?.key else { continue }
            for (app, effect) in fleet.backgroundTasks(report.open, of: app, at: report.at) {
                try await carryOut(effect, on: app)
            }
        }
        for (app, effect) in fleet.advance(to: now) { try await carryOut(effect, on: app) }
    }

    /// What ends a wait for time to pass.
    private enum Wake: Sendable {
        case time, report, settled, busStopped
    }

    /// Waits until `deadline` (or the next suspension due, if earlier), an app says something of
    /// its background tasks, the bus stops, or something is posted to `settled`. Throws
    /// `CancellationError` when the run is interrupted meanwhile.
    private func nextWake(until deadline: Duration?, settled: Mailbox<SettleAnswer>? = nil) async throws -> Wake {
        let until = [deadline, fleet.nextSuspension].compactMap { $0 }.min()
        let (reports, connection, start) = (taskReports, self.connection, now)
        let wake = await withTaskGroup(of: Wake?.self) { group -> Wake? in
            if let until {
                group.addTask {
                    try? await Task.sleep(for: max(.zero, until - start))
                    return Task.isCancelled ? nil : .time
                }
            }
            group.addTask {
                await reports.next()
                return Task.isCancelled ? nil : .report
            }
            if let settled {
                group.addTask {
                    await settled.next()
                    return Task.isCancelled ? nil : .settled
                }
            }
            group.addTask {
                await connection.closed()
                return Task.isCancelled ? nil : .busStopped
            }
            defer { group.cancelAll() }
            while let next = await group.next() {
                if let next { return next }
            }
            return nil
        }
        guard let wake, !Task.isCancelled else { throw CancellationError() }
        return wake
    }

    /// `wait`: time passes, and the suspensions that fall due meanwhile happen when due. Cut
    /// short when the device's bus stops: the run is over then.
    private func wait(_ duration: Duration) async throws {
        let end = now + duration
        while true {
            try await keepTime()
            guard now < end else { return }
            if case .busStopped = try await nextWake(until: end) {
                throw DBusError.disconnected("the device's bus stopped")
            }
        }
    }

    private func hubProcess(_ action: StepKind.HubAction) async throws {
        switch action {
        case .crash:
            device.hub.signal(SIGKILL)
            _ = device.hub.waitForExit(timeout: .seconds(5))
        case .restart:
            try await device.restartHub()
        }
    }

    /// `settle`'s bound when the step gives none: well past the 5 s an app's SDK waits for the
    /// hub, so an app waiting on a slow hub is waited for, and a settle that still runs out
    /// names it (rather than ending with the hub's timeout, which names nobody).
    public static let defaultSettleBound: Duration = .seconds(15)

    /// `settle`: returns once every running app that is not stopped has nothing pending —
    /// no post or resume waiting for a check, no check, cleanup or call in progress. Posts
    /// sent before now reach an app ahead of this request, so they count. Bounded by `limit`.
    /// When some app does not settle, the error names every such app and why.
    /// An app in its background time is suspended when that time is up, settled or not: it is
    /// then no longer waited for.
    public func settle(within limit: Duration) async throws {
        try await keepTime()
        // Each app's answer, as it comes.
        let answers = Mailbox<SettleAnswer>()
        var calls: [String: Task<Void, Never>] = [:]
        defer { for call in calls.values { call.cancel() } }
        for name in running.keys.filter({ fleet.apps[$0]?.state != .suspended }).sorted() {
            guard let app = try? client(name, timeout: limit) else { continue }
            calls[name] = Task {
                do {
                    try await app.settle()
                    answers.post(SettleAnswer(app: name, failure: nil))
                } catch is CancellationError {
                    return
                } catch let gone as AppClient.AppGone {
                    answers.post(
                        SettleAnswer(app: name, failure: Unsettled(app: name, why: gone.description, gone: true)))
                } catch {
                    answers.post(SettleAnswer(app: name, failure: Unsettled(app: name, why: "\(error)", gone: false)))
                }
            }
        }
        var failed: [Unsettled] = []
        while !calls.isEmpty {
            if case .busStopped = try await nextWake(until: nil, settled: answers) {
                throw DBusError.disconnected("the device's bus stopped")
            }
            for answer in answers.take() where calls.removeValue(forKey: answer.app) != nil {
                if let failure = answer.failure { failed.append(failure) }
            }
            try await keepTime()
            // A stopped app answers nothing until continued: it is not waited for.
            for name in calls.keys where ![.foreground, .background].contains(fleet.apps[name]?.state) {
                calls.removeValue(forKey: name)?.cancel()
            }
        }
        failed.sort { $0.app < $1.app }
        guard !failed.isEmpty else { return }
        var byReason = AppGroups<String>()
        for app in failed where !app.gone { byReason.add(app.app, under: app.why) }
        let busy = byReason.groups.map { "\(AppNames.who($0.apps)): \($0.key)" }.joined(separator: "; ")
        let gone = failed.filter(\.gone).map(\.why)
        throw StepFailure(
            description: (gone + (busy.isEmpty ? [] : ["not settled within \(limit): " + busy])).joined(separator: "; ")
        )
    }

    /// An app that did not settle: still busy, or gone.
    private struct Unsettled: Sendable {
        var app: String
        var why: String
        var gone: Bool
    }

    /// An app's answer to `Settle`: nil failure when it settled.
    private struct SettleAnswer: Sendable {
        var app: String
        var failure: Unsettled?
    }

    /// Calls to a running app (a step that names one that is not running fails before this).
    func client(_ name: String, timeout: Duration = .seconds(30)) throws -> AppClient {
        guard let app = running[name] else { throw StepFailure(description: "\(name) is not running") }
        return AppClient(connection, app: app, timeout: timeout)
    }

    /// The app for a step that a person does in it: a stopped process would never answer.
    private func usable(_ name: String) throws -> AppClient {
        guard running[name] != nil else { throw StepFailure(description: "\(name) is not running: launch it first") }
        guard frozen[name] == nil else {
            throw StepFailure(description: "\(name) is suspended: bring it to the foreground (or resume it) first")
        }
        return try client(name)
    }

    func password(of user: String) -> String { scenario.users.first { $0.user.name == user }?.password ?? user }

    /// Returns once the hub answers a `GetSession`, or `limit` has passed: whatever it was
    /// sent before has reached it by then.
    func hubAnswers(within limit: Duration) async {
        _ = try? await connection.callHub(HubMethod.getSession, at: device.hubAddress, timeout: limit)
    }

    private func hub<Method: HubMember>(_ method: Method, _ arguments: [DBusValue] = []) async throws {
        try await connection.callHub(method, arguments, at: device.hubAddress, timeout: .seconds(30))
    }

    /// Stops every app it started (a stopped one is continued first, so it can exit).
    public func stopApps() {
        for app in running.values { app.terminate(grace: .seconds(3)) }
        running = [:]
    }
}
