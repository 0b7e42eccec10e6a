import DBusKit
import DeviceContract
import DeviceLaunch
import DeviceProcesses
import Foundation
import HubFiles
import RunResults
import Scenario
import SharedDevice

extension Scenario {
    /// Each app's declared cleanup, by name.
    public var cleanups: [String: CleanupPolicy] {
        Dictionary(uniqueKeysWithValues: apps.map { ($0.name, $0.cleanup) })
    }

    /// What a new hub starts from: the scenario's `device` settings and its users, hashed.
    public var hubSetup: HubSetup {
        HubSetup(
            policy: device.policy, online: device.online,
            directory: ConsoleDirectory(users.map { ($0.user, $0.password) }))
    }
}

extension TraceEvent {
    /// What a person must hear of at once: an app's cleanup that failed or left data behind.
    var surfacedProblem: String? {
        if self.is(.sdkRefused) {
            return "\(proc): its SDK refused to start (\(self[.error] ?? "?")): \(self[.message] ?? "")"
        }
        guard self.is(.cleanupFailed) else { return nil }
        return "\(proc): cleanup (\(cleanupThatRan)) for \(self[.previous] ?? "?") failed: \(self[.error] ?? "")"
    }

    /// A file the run is judged by that a process could not write: the run cannot be judged.
    var writeFailure: String? {
        guard self.is(.writeFailed) else { return nil }
        return "\(proc) could not write \(self[.path] ?? "?"): \(self[.error] ?? "?"); the run cannot be judged"
    }
}

/// Runs one scenario in a run folder: starts the device, drives the steps, checks the
/// expectations, and stops every process it started on every way out.
public enum ScenarioRun {
    public static func run(
        _ scenario: Scenario, in directory: String, sdlab: String = DevicePaths.executablePath(),
        progress: @escaping @Sendable (StepResult) -> Void = { _ in },
        fleetProgress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }
    ) async -> ScenarioResult {
        var result = ScenarioResult(scenario: scenario, steps: [], timings: [])
        let device: RunningDevice
        let connection: Connection
        do {
            device = try await RunningDevice.start(
                in: directory, detached: false, setup: scenario.hubSetup, sdlab: sdlab)
        } catch {
            result.deviceDidNotStart(error)
            return result
        }
        do {
            connection = try await Connection.connect(to: device.bus.address)
        } catch {
            device.stop()
            result.deviceDidNotStart(error)
            return result
        }
        let driver = StepDriver(scenario: scenario, device: device, connection: connection, sdlab: sdlab)
        driver.onFleetProgress = fleetProgress
        var since: UInt64 = 0
        var failedStep: (step: Step, began: UInt64)?
        for step in flattened(scenario.steps) {
            let began = TraceLog.now()
            let ended = driver.noticeEndedApps(before: step.kind)
            var outcome = await run(step, driver: driver, since: &since)
            outcome.notes = ended + outcome.notes
            // A step a termination signal cut short is neither passed nor failed: not reported.
            if Task.isCancelled { break }
            let surfaced = driver.traces.newEvents()
            outcome.notes += surfaced.compactMap(\.surfacedProblem)
            result.steps.append(outcome)
            progress(outcome)
            if let failure = surfaced.lazy.compactMap(\.writeFailure).first {
                result.environmentFailure = failure
                break
            }
            // A step that failed may have failed because the bus died a moment ago: give its
            // exit a moment to show before calling the run's failure the scenario's.
            let busStopped =
                outcome.passed || isExpectation(step)
                ? !device.bus.process.isRunning : device.bus.process.waitForExit(timeout: .milliseconds(500))
            if busStopped {
                result.environmentFailure = "the device's bus (dbus-daemon) stopped during the run"
                break
            }
            if !outcome.passed, !isExpectation(step) {
                failedStep = (step, began)
                // A step that got no reply may still be carried out: let the hub answer once
                // (bounded) before the device stops, so a late commit shows in its trace.
                await driver.hubAnswers(within: .seconds(30))
                break
            }
        }
        if Task.isCancelled {
            result.interrupted = true
            await stop(driver, connection, device)
            return result
        }
        // An app that ended after the last step counts too (the scan asks the apps that run).
        _ = driver.noticeEndedApps()
        result.scan = await ScanSummary(of: directory, driver: driver)
        let unheard = await offPool { AppFence.refusalsHeard() }
        result.events = driver.traces.merged()
        if result.environmentFailure == nil {
            result.environmentFailure =
                unheard ?? result.events.lazy.compactMap(\.writeFailure).first
                ?? strangerInTrace(
                    result.events, launched: driver.launchedPIDs, failedLaunches: driver.failedLaunches)
                ?? driver.appsEndedOnTheirOwn ?? result.scan.unproven
        }
        if let (step, began) = failedStep, let after = Self.commits(in: result.events, since: began, of: step) {
            result.steps.append(after)
            progress(after)
        }
        let broken = DeviceInvariants.violations(in: result.events)
        if !broken.isEmpty {
            let location = scenario.steps.last?.location ?? Location(file: scenario.file, line: 1, column: 1)
            let failures = broken.map {
                StepFailure(location: location, reason: .invariant($0.rule, process: $0.process, detail: $0.detail))
            }
            result.steps.append(StepResult(location: location, title: "device invariants", failures: failures))
            progress(result.steps[result.steps.count - 1])
        }
        result.timings = SessionChangeTiming.all(in: result.events, cleanups: scenario.cleanups)
        // A signal during the scan may have left it unfinished: no verdict from it.
        result.interrupted = Task.isCancelled
        await stop(driver, connection, device)
        return result
    }

    private static func stop(_ driver: StepDriver, _ connection: Connection, _ device: RunningDevice) async {
        driver.stopApps()
        await connection.close()
        device.stop()
    }

    private static func run(_ step: Step, driver: StepDriver, since: inout UInt64) async -> StepResult {
        var result = await outcome(of: step, driver: driver, since: &since)
        result.notes = driver.notices + result.notes
        driver.notices = []
        return result
    }

    private static func outcome(of step: Step, driver: StepDriver, since: inout UInt64) async -> StepResult {
        let title = step.title
        do {
            // What fell due since the previous step (an app's background time ran out) first.
            try await driver.keepTime()
            switch step.kind {
            case .expect(let expectations):
                let failures = try await ExpectationCheck(driver: driver, since: since).failures(of: expectations)
                since = TraceLog.now()
                return StepResult(location: step.location, title: title, failures: failures)
            default:
                let notes = try await driver.perform(step)
                return StepResult(location: step.location, title: title, failures: [], notes: notes)
            }
        } catch {
            return StepResult(
                location: step.location, title: title,
                failures: [StepFailure(location: step.location, reason: .stepError("\(error)"))])
        }
    }

    /// A process the runner did not launch that wrote an app's trace (it took a dead app's bus
    /// name and its command line): the trace is not the app's alone, so the run cannot be judged.
    /// A `launched` line of no launched process is allowed once per launch that failed.
    static func strangerInTrace(
        _ events: [TraceEvent], launched: Set<Int32>, failedLaunches: [String: Int] = [:]
    ) -> String? {
        var allowed = failedLaunches
        for event in events where event.is(.launched) {
            if let pid = event.integer(.pid, as: Int32.self), launched.contains(pid) { continue }
            guard allowed[event.proc, default: 0] > 0 else {
                return "\(event.proc)'s trace was written by PID \(event[.pid] ?? "?"), a process the runner did not"
                    + " launch; the run cannot be judged"
            }
            allowed[event.proc, default: 0] -= 1
        }
        return nil
    }

    /// What the hub committed from the start of a failed step on, whatever the step's reply
    /// said: a step that timed out may have been carried out later (a hung bus, a busy hub).
    /// Nil when it committed nothing.
    static func commits(in events: [TraceEvent], since began: UInt64, of step: Step) -> StepResult? {
        let committed = events.filter {
            $0.proc == "hub" && ($0.is(.sessionChanged) || $0.is(.accountChanged)) && $0.t >= began
        }
        guard !committed.isEmpty else { return nil }
        let notes = committed.map { change in
            let seconds = Double(change.t - began) / 1e9
            let what = change.is(.accountChanged) ? "MSAL's account" : change[.state] ?? "?"
            return "the hub committed \(what) (user \(change[.user] ?? "none"), generation "
                + "\(change[.generation] ?? "?")) \(String(format: "%.1f", seconds)) s after this step began"
        }
        return StepResult(
            location: step.location, title: "the hub after the failed step: \(step.title)", failures: [], notes: notes)
    }

    /// `repeat` unrolled, so each step is reported where it is written.
    private static func flattened(_ steps: [Step]) -> [Step] {
        steps.flatMap { step -> [Step] in
            if case .repeat(let times, let inner) = step.kind {
                return (0..<times).flatMap { _ in flattened(inner) }
            }
            return [step]
        }
    }

    private static func isExpectation(_ step: Step) -> Bool {
        if case .expect = step.kind { return true }
        return false
    }
}
