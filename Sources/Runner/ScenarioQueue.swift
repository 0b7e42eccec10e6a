import RunResults
import Scenario

/// Every run of every scenario, at most `jobs` at once, until the task is cancelled: the
/// longest first (by steps run, then apps), so that none starts last and runs alone.
public enum ScenarioQueue {
    /// One run of one scenario that ended (or was cut short).
    public struct FinishedRun: Sendable {
        /// The scenario's index in the list given, and the run (1-based).
        public var scenario: Int
        public var run: Int
        public var result: ScenarioResult
        public var seconds: Double
    }

    /// `runOne` gets the scenario, its run (1-based) and the run's place in the order started.
    public static func run(
        _ scenarios: [Scenario], repeats: Int, jobs: Int,
        runOne: @escaping @Sendable (Scenario, _ run: Int, _ index: Int) async -> ScenarioResult
    ) async -> [FinishedRun] {
        let weight = scenarios.map { Step.runCount(of: $0.steps) + $0.apps.count }
        let work = scenarios.indices.sorted { (-weight[$0], $0) < (-weight[$1], $1) }
            .flatMap { scenario in (1...repeats).map { (scenario: scenario, run: $0) } }
        return await withTaskGroup(of: FinishedRun.self) { group in
            var next = 0
            func startNext() {
                guard next < work.count, !Task.isCancelled else { return }
                let (scenario, run) = work[next]
                let index = next
                next += 1
                group.addTask {
                    let start = ContinuousClock.now
                    let result = await runOne(scenarios[scenario], run, index)
                    let seconds = (ContinuousClock.now - start) / .seconds(1)
                    return FinishedRun(scenario: scenario, run: run, result: result, seconds: seconds)
                }
            }
            for _ in 0..<min(jobs, work.count) { startNext() }
            var finished: [FinishedRun] = []
            while let done = await group.next() {
                finished.append(done)
                startNext()
            }
            return finished
        }
    }
}
