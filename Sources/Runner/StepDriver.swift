import DBusKit
import DeviceContract
import DeviceLaunch
import DeviceProcesses
import Foundation
import RunResults
import Scenario
import SharedDevice

// StepDriver's state, and each step sent to the hub, an app or the hub's process (StepDriver+* the rest).

/// Carries out a scenario's steps on a started device: each step becomes D-Bus calls or
/// process signals. Which app is in front, and what each lifecycle step does, is the
/// domain's `AppFleet`; this only sends what it says.
public final class StepDriver {
    public let scenario: Scenario
    public let device: RunningDevice
    let connection: Connection
    let sdlab: String
    var fleet: AppFleet
    var running: [String: LaunchedApp] = [:]
    /// The unique bus name of each app's process the runner ended, until it is launched again.
    var ended: [String: String] = [:]
    /// When each app was last continued (SIGCONT), as `Resumed` tells it.
    var continuedAt: [String: UInt64] = [:]
    /// The PID of every process that answered for an app this driver launched.
    var launchedPIDs: Set<Int32> = []
    /// Per app, the launches that failed: each may have left a `launched` line of a process
    /// the runner then stopped.
    var failedLaunches: [String: Int] = [:]
    /// The last snapshot of each app taken before it was stopped: a stopped app cannot answer,
    /// and cannot change either.
    var frozen: [String: AppSnapshot] = [:]
    /// The device's trace, read as it grows.
    let traces: TraceTail
    /// Each app whose process ended though no step ended it, with how it ended, in the order
    /// noticed: the run cannot be judged (Docs/outputs.md, exit 3).
    var endedOnTheirOwn: [(app: String, how: ChildProcess.ExitStatus?)] = []
    /// What a person should know of what happened to the apps outside any step's own doing (an
    /// app iOS ended when its background time ran out), until the step that saw it reports it.
    var notices: [String] = []
    /// What the apps say of their background tasks, once listened to (at the first step).
    let taskReports = Mailbox<BackgroundTaskReport>(most: BackgroundTaskReport.most)
    var taskSubscription: SignalSubscription?

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
                        AppLifecycle(
                            backgroundMode: $0.background, backgroundTime: scenario.device.backgroundTime(for: $0.sdk))
                    )
                }))
    }

    /// Told `(done, of)` while a lifecycle step acts on many apps (a fleet launching).
    public var onFleetProgress: @Sendable (Int, Int) -> Void = { _, _ in }

    /// Every process this driver started and still runs.
    public var processes: [ChildProcess] { running.values.map(\.process) }

    /// Why a step could not be carried out as it says (a `StepFailure` of the run once caught).
    public struct StepError: Error, CustomStringConvertible {
        public let description: String
    }

    /// A step a person does in an app that cannot take it (not running, suspended): refused
    /// by the device as `error` names it, so that a scenario can expect it.
    struct Refusal: Error {
        let error: DeviceError
        let message: String
    }

    /// Runs one step (not `expect` or `repeat`, which the runner handles). A step
    /// with `error:` must fail with `dev.sdlab.Error.NAME`. Returns what a person should know
    /// of how it went (a launch that found the app running).
    @discardableResult
    public func perform(_ step: Step) async throws -> [String] {
        if let point = step.hubCrash { return try await crashingHub(at: point, step.kind) }
        let notes = launchesOfRunningApps(step.kind) + terminationsOfSuspendedApps(step.kind)
        do {
            try await act(step.kind)
        } catch let refusal as Refusal {
            guard let expected = step.error else { throw StepError(description: refusal.message) }
            guard refusal.error == expected else {
                throw StepError(
                    description: "expected error \(expected), got \(refusal.error): \(refusal.message)")
            }
            return notes
        } catch let error as DBusError {
            guard let expected = step.error else { throw StepError(description: error.description) }
            guard DeviceError(error) == expected else {
                throw StepError(description: "expected error \(expected), got \(error.name)")
            }
            return notes
        }
        if let expected = step.error {
            throw StepError(description: "expected error \(expected), but the step succeeded")
        }
        return notes
    }

    /// `hub_crash: POINT`: the hub is armed to die at that point of the step's change (it takes
    /// the point from its crash file at the change), then asked for it. The step holds when
    /// the call got no answer and the hub's process ended; an answer means the change never
    /// reached the point.
    private func crashingHub(at point: HubCrashPoint, _ kind: StepKind) async throws -> [String] {
        let file = RunFolder.hubCrashPoint(in: device.directory)
        do {
            try Data(point.rawValue.utf8).write(to: URL(fileURLWithPath: file))
        } catch {
            throw StepError(description: "cannot arm the hub's crash at \(file): \(error)")
        }
        defer { unlink(file) }
        var answer: String?
        do {
            try await act(kind)
            answer = "it answered"
        } catch let error as DBusError where error.name.hasPrefix(DeviceBus.errorPrefix) {
            answer = "it answered \(error.name)"
        } catch is DBusError {
            // No answer: the hub is gone, or going.
        }
        let hub = device.hub
        let ended = await offPool { hub.waitForExit(timeout: .seconds(5)) }
        if let answer {
            if ended {
                throw StepError(description: "the hub ended, but \(answer), so it did not crash at \(point.rawValue)")
            }
            throw StepError(
                description:
                    "the hub did not crash: \(answer), so the change never reached \(point.rawValue) (see hub_crash in Docs/scenarios.md)"
            )
        }
        guard ended else {
            throw StepError(description: "the hub did not answer, yet its process is still running after 5 s")
        }
        return ["the hub crashed at \(point.rawValue) of the change, as the step asked: it is down until hub: restart"]
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
        var carrier = self
        try await kind.carriedOut(by: &carrier)?()
    }

    /// Calls to a running app (a step that names one that is not running fails before this).
    func client(_ name: String, timeout: Duration = .seconds(30)) throws -> AppClient {
        guard let app = running[name] else { throw StepError(description: "\(name) is not running") }
        return AppClient(connection, app: app, timeout: timeout)
    }

    /// The app for a step that a person does in it: a stopped process would never answer.
    func usable(_ name: String) throws -> AppClient {
        guard running[name] != nil else {
            throw Refusal(error: .notRunning, message: "\(name) is not running: launch it first")
        }
        guard frozen[name] == nil else {
            throw Refusal(
                error: .suspended, message: "\(name) is suspended: bring it to the foreground (or resume it) first")
        }
        return try client(name)
    }

    func password(of user: String) -> String { scenario.users.first { $0.user.name == user }?.password ?? user }

    /// Returns once the hub answers a `GetSession`, or `limit` has passed: whatever it was
    /// sent before has reached it by then.
    func hubAnswers(within limit: Duration) async {
        _ = try? await connection.callHub(HubMethod.getSession, at: device.hubAddress, timeout: limit)
    }

    func hub<Method: HubMember>(_ method: Method, _ arguments: [DBusValue] = []) async throws {
        try await connection.callHub(method, arguments, at: device.hubAddress, timeout: .seconds(30))
    }
}
