import DeviceProcesses
import Foundation
import RunResults
import Scenario

// A scenario's run in a run folder of its own, from the folder's making to its keeping or removal.

/// How `sdlab run` and `sdlab fuzz` run a scenario in a folder of its own (`LockedRunFolder`,
/// `PREFIX-XXXXXX` under the temporary folder): the folder is made and locked before anything
/// starts, released when the run ends (a sweep then never takes it for a killed run's), looked
/// into while it is still there, and then kept, to look into later, or removed.
public struct RunFolderLifecycle: Sendable {
    /// Which run folders outlive their run.
    public enum Keeping: Sendable {
        /// None: what a run found is told some other way.
        case never
        /// A run's that ran to its end and did not pass; an interrupted run's goes.
        case failed
        /// Every one, a passed or interrupted run's too (`--keep`).
        case all
    }

    /// The folder's name before `-XXXXXX`, one of `LockedRunFolder.prefixes`.
    public let prefix: String
    public let keeping: Keeping

    public init(prefix: String, keeping: Keeping) {
        self.prefix = prefix
        self.keeping = keeping
    }

    /// Runs `scenario` in a new run folder (`ScenarioRun.run`), then gives `look` the result and
    /// the folder, released but still there, before keeping or removing it. Returns the result,
    /// what `look` found, and the folder if it was kept. Throws, having started nothing, when
    /// the folder cannot be made: the device could not run.
    public func run<Found>(
        _ scenario: Scenario,
        progress: @escaping @Sendable (StepResult) -> Void = { _ in },
        fleetProgress: @escaping @Sendable (Int, Int) -> Void = { _, _ in },
        lookingInto look: (_ result: ScenarioResult, _ folder: String) async -> Found
    ) async throws(LaunchError) -> (result: ScenarioResult, found: Found, keptIn: String?) {
        let runFolder = try LockedRunFolder.make(prefix: prefix)
        let folder = runFolder.path
        let result = await ScenarioRun.run(scenario, in: folder, progress: progress, fleetProgress: fleetProgress)
        runFolder.release()  // the run ended: its folder is to keep or remove, not a killed run's
        let found = await look(result, folder)
        // A folder that cannot be removed is left, and said to be, as a kept one is.
        if !keeps(result), (try? TreeRemoval.remove(folder)) != nil { return (result, found, nil) }
        return (result, found, folder)
    }

    /// Runs `scenario` in a new run folder, as `run(_:progress:fleetProgress:lookingInto:)` does
    /// with nothing to look into.
    public func run(
        _ scenario: Scenario,
        progress: @escaping @Sendable (StepResult) -> Void = { _ in },
        fleetProgress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }
    ) async throws(LaunchError) -> (result: ScenarioResult, keptIn: String?) {
        let ran = try await run(scenario, progress: progress, fleetProgress: fleetProgress) { _, _ in () }
        return (ran.result, ran.keptIn)
    }

    private func keeps(_ result: ScenarioResult) -> Bool {
        switch keeping {
        case .never: false
        case .failed: !result.passed && !result.interrupted
        case .all: true
        }
    }
}
