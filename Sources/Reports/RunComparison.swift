import Foundation

/// Two runs' documents side by side (`sdlab compare`): scenarios whose outcome changed, apps
/// whose callbacks changed, and timing per scenario × model × mechanism (notified and
/// exposure), judged by a one-sided Mann–Whitney U test plus a smallest effect worth a red build.
public struct RunComparison: Sendable {
    public struct Thresholds: Sendable {
        /// Significance: the chance of calling noise a slowdown.
        public var alpha = 0.05
        /// A slowdown counts only if the median grows by at least this many ms …
        public var minimumMilliseconds = 1.0
        /// … and by at least this share of the base median, in percent.
        public var minimumPercent = 10.0

        public init() {}
    }

    public enum Verdict: String, Sendable {
        /// Slower beyond the thresholds, or behaviour that changed for the worse.
        case regression
        /// Faster beyond the thresholds, or a scenario that now passes.
        case improvement
        /// A change that is neither (callbacks that differ are a regression).
        case unchanged
        /// Too few samples for any difference to be significant at `alpha`.
        case undecided
    }

    public struct TimingChange: Sendable {
        public var scenario: String
        public var model: String
        public var mechanism: String
        /// `notified` or `exposure`.
        public var measure: String
        public var base: [Double]
        public var new: [Double]
        /// One-sided: the chance of new samples at least this much larger if nothing changed.
        public var pSlower: Double
        public var pFaster: Double
        public var verdict: Verdict

        public var baseMedian: Double { Statistics.median(base) }
        public var newMedian: Double { Statistics.median(new) }
    }

    /// A scenario's outcome, an app's callbacks, open pairs, or a scenario only one side has.
    public struct Change: Sendable {
        public var scenario: String
        public var what: String
        public var verdict: Verdict
    }

    public var changes: [Change] = []
    public var timings: [TimingChange] = []
    public let thresholds: Thresholds

    public var regressions: Int {
        changes.filter { $0.verdict == .regression }.count + timings.filter { $0.verdict == .regression }.count
    }

    public init(base: RunDocument, new: RunDocument, thresholds: Thresholds = Thresholds()) {
        self.thresholds = thresholds
        let baseByFile = Dictionary(base.scenarios.map { ($0.file, $0) }, uniquingKeysWith: { first, _ in first })
        let newFiles = Set(new.scenarios.map(\.file))
        for scenario in base.scenarios where !newFiles.contains(scenario.file) {
            // A scenario the new run did not run cannot vouch for anything: a gate must not pass.
            changes.append(
                Change(
                    scenario: scenario.name, what: "only in the base run: the new run lacks it", verdict: .regression))
        }
        for scenario in new.scenarios {
            guard let old = baseByFile[scenario.file] else {
                changes.append(Change(scenario: scenario.name, what: "only in the new run", verdict: .unchanged))
                continue
            }
            compareBehaviour(old, scenario)
            compareTiming(old, scenario)
        }
    }

    private mutating func compareBehaviour(_ old: ScenarioReport, _ new: ScenarioReport) {
        if old.passed != new.passed {
            changes.append(
                Change(
                    scenario: new.name, what: old.passed ? "passed, now fails" : "failed, now passes",
                    verdict: old.passed ? .regression : .improvement))
        }
        let oldCallbacks = Dictionary(old.apps.map { ($0.name, $0.callbacks) }, uniquingKeysWith: { a, _ in a })
        for app in new.apps {
            guard let before = oldCallbacks[app.name], before != app.callbacks else { continue }
            changes.append(
                Change(
                    scenario: new.name,
                    what: "\(app.name) callbacks changed: [\(before.joined(separator: ", "))] → "
                        + "[\(app.callbacks.joined(separator: ", "))]",
                    verdict: .regression))
        }
        let (oldOpen, newOpen) = (old.pairs.filter { $0.open != nil }.count, new.pairs.filter { $0.open != nil }.count)
        if newOpen > oldOpen {
            changes.append(
                Change(
                    scenario: new.name,
                    what: "open pairs (another user's data left readable): \(oldOpen) → \(newOpen)",
                    verdict: .regression))
        }
    }

    private mutating func compareTiming(_ old: ScenarioReport, _ new: ScenarioReport) {
        struct Group: Hashable, Comparable {
            let model: String, mechanism: String
            static func < (a: Group, b: Group) -> Bool { (a.model, a.mechanism) < (b.model, b.mechanism) }
        }
        func exposed(_ report: ScenarioReport) -> [Group: [ScenarioReport.Pair]] {
            Dictionary(grouping: report.pairs.filter { !$0.held.isEmpty }) {
                Group(model: $0.sdk, mechanism: $0.mechanism)
            }
        }
        let (before, after) = (exposed(old), exposed(new))
        for group in Set(before.keys).intersection(after.keys).sorted() {
            for (measure, samples) in [
                ("notified", { (pairs: [ScenarioReport.Pair]) in pairs.compactMap(\.notifiedMS) }),
                ("exposure", { (pairs: [ScenarioReport.Pair]) in pairs.compactMap(\.exposureMS) }),
            ] {
                let (base, latest) = (samples(before[group]!), samples(after[group]!))
                guard !base.isEmpty, !latest.isEmpty else { continue }
                timings.append(
                    judge(
                        scenario: new.name, model: group.model, mechanism: group.mechanism, measure: measure,
                        base: base, new: latest))
            }
        }
    }

    private func judge(
        scenario: String, model: String, mechanism: String, measure: String, base: [Double], new: [Double]
    ) -> TimingChange {
        let pSlower = Statistics.mannWhitneyGreater(new, than: base)
        let pFaster = Statistics.mannWhitneyGreater(base, than: new)
        let (from, to) = (Statistics.median(base), Statistics.median(new))
        func large(_ growth: Double, over reference: Double) -> Bool {
            growth >= thresholds.minimumMilliseconds && growth >= reference * thresholds.minimumPercent / 100
        }
        let verdict: Verdict =
            if pSlower < thresholds.alpha, large(to - from, over: from) {
                .regression
            } else if pFaster < thresholds.alpha, large(from - to, over: from) {
                .improvement
            } else if Statistics.smallestOneSidedP(base.count, new.count) >= thresholds.alpha {
                .undecided
            } else {
                .unchanged
            }
        return TimingChange(
            scenario: scenario, model: model, mechanism: mechanism, measure: measure, base: base, new: new,
            pSlower: pSlower, pFaster: pFaster, verdict: verdict)
    }
}

/// The statistics `RunComparison` needs, for small samples.
public enum Statistics {
    public static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// One-sided Mann–Whitney U: the chance, if both samples came from one distribution, that
    /// `a` would rank at least this far above `b`. Exact (every arrangement counted) for small
    /// samples without ties; else the normal approximation with tie and continuity corrections.
    public static func mannWhitneyGreater(_ a: [Double], than b: [Double]) -> Double {
        let (n1, n2) = (a.count, b.count)
        guard n1 > 0, n2 > 0 else { return 1 }
        let ranks = midRanks(a + b)
        let u = ranks.prefix(n1).reduce(0, +) - Double(n1 * (n1 + 1)) / 2
        let tied = Set(a + b).count < n1 + n2
        if !tied, n1 + n2 <= 40 { return exactUpperTail(Int(u.rounded()), n1, n2) }
        let n = Double(n1 + n2)
        let tieTerm = Dictionary(grouping: a + b, by: { $0 }).values.map { Double($0.count) }
            .reduce(0) { $0 + ($1 * $1 * $1 - $1) }
        let variance = Double(n1 * n2) / 12 * ((n + 1) - tieTerm / (n * (n - 1)))
        guard variance > 0 else { return 1 }
        let z = (u - Double(n1 * n2) / 2 - 0.5) / variance.squareRoot()
        return 0.5 * erfc(z / 2.0.squareRoot())
    }

    /// The smallest one-sided p any difference could reach with these sample sizes: 1 / C(n1+n2, n1).
    public static func smallestOneSidedP(_ n1: Int, _ n2: Int) -> Double {
        var ways = 1.0
        for k in 0..<min(n1, n2) { ways = ways * Double(n1 + n2 - k) / Double(k + 1) }
        return 1 / ways
    }

    /// Ranks 1…n, ties sharing the mean of their ranks.
    static func midRanks(_ values: [Double]) -> [Double] {
        let order = values.indices.sorted { values[$0] < values[$1] }
        var ranks = [Double](repeating: 0, count: values.count)
        var start = 0
        while start < order.count {
            var end = start
            while end + 1 < order.count, values[order[end + 1]] == values[order[start]] { end += 1 }
            let rank = Double(start + end) / 2 + 1
            for position in start...end { ranks[order[position]] = rank }
            start = end + 1
        }
        return ranks
    }

    /// P(U ≥ u) for samples of n1 and n2 without ties: arrangements counted by the recurrence
    /// ways(i, j, u) = ways(i − 1, j, u − j) + ways(i, j − 1, u).
    static func exactUpperTail(_ u: Int, _ n1: Int, _ n2: Int) -> Double {
        // ways[j][v]: arrangements of i values of the first sample among j of the second with U = v.
        var ways = [[Double]](repeating: [1], count: n2 + 1)
        for i in 1...n1 {
            var next = [[Double]](repeating: [], count: n2 + 1)
            next[0] = [1]
            for j in 1...n2 {
                var row = [Double](repeating: 0, count: i * j + 1)
                for (v, count) in next[j - 1].enumerated() { row[v] += count }
                for (v, count) in ways[j].enumerated() where v + j < row.count { row[v + j] += count }
                next[j] = row
            }
            ways = next
        }
        let distribution = ways[n2]
        let total = distribution.reduce(0, +)
        return distribution.enumerated().filter { $0.offset >= u }.map(\.element).reduce(0, +) / total
    }
}
