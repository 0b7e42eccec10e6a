import DeviceContract
import Histogram
import SharedDevice

/// p50 / p90 / p99 / max of a set of durations, in milliseconds.
public struct Percentiles: Equatable, Sendable, Codable {
    public var p50, p90, p99, max: Double

    public init(milliseconds p50: Double, _ p90: Double, _ p99: Double, _ max: Double) {
        (self.p50, self.p90, self.p99, self.max) = (p50, p90, p99, max)
    }

    /// Nil for no values. Recorded in microseconds, three significant digits.
    public init?(nanoseconds values: [UInt64]) {
        guard !values.isEmpty else { return nil }
        var histogram = Histogram<UInt64>(highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: .three)
        for value in values { histogram.record(Swift.min(value / 1000, 3_600_000_000)) }
        func ms(_ micros: UInt64) -> Double { Double(micros) / 1000 }
        p50 = ms(histogram.valueAtPercentile(50))
        p90 = ms(histogram.valueAtPercentile(90))
        p99 = ms(histogram.valueAtPercentile(99))
        max = ms(histogram.max)
    }

    public var text: String {
        [p50, p90, p99, max].map { $0 < 10 ? String(format2: $0) : String(Int($0.rounded())) }.joined(separator: " / ")
    }
}

extension String {
    /// Two decimals without Foundation's formatter.
    public init(format2 value: Double) {
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        self = "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

/// The timing table of Docs/behaviour.md §9, Docs/outputs.md: per model and mechanism, the (change, app) pairs where
/// the app held another user's data, how many of them are still open, and the notified and
/// exposure percentiles.
public struct TimingRow: Equatable, Sendable {
    public var model: String
    public var mechanism: Mechanism
    public var count: Int
    public var open: Int
    public var notified: Percentiles?
    public var exposure: Percentiles?

    public static func table(_ timings: [SessionChangeTiming], sdk: [String: SDKKind]) -> [TimingRow] {
        struct Group: Hashable { let model: String, mechanism: Mechanism }
        let groups = Dictionary(grouping: timings.filter(\.exposed)) {
            Group(model: sdk[$0.app]?.rawValue ?? "?", mechanism: $0.mechanism)
        }
        return groups.keys.sorted { ($0.model, $0.mechanism.rawValue) < ($1.model, $1.mechanism.rawValue) }.map {
            group in
            let rows = groups[group]!
            return TimingRow(
                model: group.model, mechanism: group.mechanism, count: rows.count,
                open: rows.filter(\.isOpen).count,
                notified: Percentiles(nanoseconds: rows.compactMap(\.notifiedAfter)),
                exposure: Percentiles(nanoseconds: rows.compactMap(\.exposure)))
        }
    }
}

extension SessionChangeTiming {
    /// A line per open pair, `generation 2, mail (held cou1/plain): cleanup failed: …`; pairs
    /// alike but for the app (a fleet's members) are one line that lists the apps.
    public static func openLines(_ timings: [SessionChangeTiming]) -> [String] {
        struct Key: Hashable { let generation: UInt64, held: String, reason: String }
        var open = AppGroups<Key>()
        for timing in timings where timing.isOpen {
            open.add(
                timing.app,
                under: Key(
                    generation: timing.generation, held: timing.held.description, reason: timing.openReason ?? "open"))
        }
        return open.groups.map { key, apps in
            "generation \(key.generation), \(AppNames.who(apps)) (held \(key.held)): \(key.reason)"
        }
    }
}
