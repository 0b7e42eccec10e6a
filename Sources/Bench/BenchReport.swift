import Foundation
import Runner

/// One fleet size's results, as `sdlab bench --json` writes them (Docs/outputs.md). Latencies in ms.
public struct BenchRun: Codable, Sendable {
    public var apps: Int
    public var signals: Int
    public var gapMs: Double
    public var delivery: Percentiles?
    public var lastDelivery: Percentiles?
    public var exposure: Percentiles?
    /// Session changes measured for exposure, and (app, change) pairs never cleaned.
    public var changes: Int
    public var uncleaned: Int
    public var launchSeconds: Double
    public var pssKBPerApp: Int
    public var lost: Int
    public var cpuPerPost: CPUShare
    public var baseline: Baseline?
    public var ratio: Ratio?

    public struct Baseline: Codable, Sendable {
        public var lastDelivery: Percentiles
        public var perReceiver: Percentiles
        public var pssKBPerReceiver: Int
        public var lost: Int

        enum CodingKeys: String, CodingKey {
            case lastDelivery = "last_delivery_ms", perReceiver = "per_rx_ms", pssKBPerReceiver = "pss_kb_per_receiver",
                lost
        }
    }

    /// sdlab's p50 over the C baseline's, measured in the same run.
    public struct Ratio: Codable, Sendable {
        public var lastDeliveryP50: Double
        public var deliveryP50: Double

        enum CodingKeys: String, CodingKey {
            case lastDeliveryP50 = "last_delivery_p50", deliveryP50 = "delivery_p50"
        }
    }

    enum CodingKeys: String, CodingKey {
        case apps, signals, gapMs = "gap_ms", delivery = "delivery_ms", lastDelivery = "last_delivery_ms",
            exposure = "exposure_ms", changes, uncleaned, launchSeconds = "launch_s", pssKBPerApp = "pss_kb_per_app",
            lost, cpuPerPost = "cpu_us_per_post", baseline, ratio
    }

    public init(_ measured: FleetMeasurement, gap: Duration, changes: Int, baseline: CBaseline.Fanout?) {
        apps = measured.apps
        signals = measured.signals
        gapMs = Double(gap.nanoseconds) / 1e6
        delivery = Percentiles(nanoseconds: measured.deliveries)
        lastDelivery = Percentiles(nanoseconds: measured.slowestDeliveries)
        exposure = Percentiles(nanoseconds: measured.exposures)
        self.changes = changes
        uncleaned = measured.uncleaned
        launchSeconds = (measured.launchSeconds * 1000).rounded() / 1000
        pssKBPerApp = measured.pssKB.isEmpty ? 0 : measured.pssKB.reduce(0, +) / measured.pssKB.count
        lost = measured.lost
        cpuPerPost = measured.cpuPerPost
        self.baseline = baseline.map {
            Baseline(
                lastDelivery: $0.slowest, perReceiver: $0.perReceiver, pssKBPerReceiver: $0.pssKBPerReceiver,
                lost: $0.lost)
        }
        if let baseline, let delivery, let lastDelivery {
            ratio = Ratio(
                lastDeliveryP50: Self.ratio(lastDelivery.p50, baseline.slowest.p50),
                deliveryP50: Self.ratio(delivery.p50, baseline.perReceiver.p50))
        }
    }

    /// One line for a person, as each fleet size finishes.
    public var summary: String {
        let ms = { (value: Double?) in value.map { BenchResults.number($0) + " ms" } ?? "–" }
        var parts = ["\(apps) apps: delivery p50 \(ms(delivery?.p50))", "slowest p50 \(ms(lastDelivery?.p50))"]
        if let baseline, let ratio {
            parts[0] += " (C \(ms(baseline.perReceiver.p50)), \(BenchResults.number(ratio.deliveryP50))×)"
            parts[1] += " (C \(ms(baseline.lastDelivery.p50)), \(BenchResults.number(ratio.lastDeliveryP50))×)"
        }
        parts += [
            "exposure p99 \(ms(exposure?.p99))", "launch \(BenchResults.number(launchSeconds)) s",
            "PSS \(pssKBPerApp) kB", "lost \(lost)",
        ]
        return parts.joined(separator: ", ")
    }

    private static func ratio(_ ours: Double, _ floor: Double) -> Double {
        floor > 0 ? (ours / floor * 100).rounded() / 100 : 0
    }
}

/// The whole sweep: `{"runs": […]}`.
public struct BenchResults: Codable, Sendable {
    public var runs: [BenchRun]

    public init(runs: [BenchRun]) { self.runs = runs }

    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }

    /// The table printed at the end: one row per fleet size, latencies in ms.
    public var table: String {
        let header = [
            "apps", "delivery p50/p99", "C p50/p99", "ratio", "slowest p50/p99", "C p50/p99", "ratio",
            "exposure p50/p99", "launch s", "PSS kB", "C PSS", "lost", "CPU µs/post bus/hub/apps",
        ]
        let rows = runs.map { run -> [String] in
            [
                String(run.apps), Self.pair(run.delivery), Self.pair(run.baseline?.perReceiver),
                run.ratio.map { Self.number($0.deliveryP50) + "×" } ?? "–",
                Self.pair(run.lastDelivery), Self.pair(run.baseline?.lastDelivery),
                run.ratio.map { Self.number($0.lastDeliveryP50) + "×" } ?? "–",
                Self.pair(run.exposure), Self.number(run.launchSeconds), String(run.pssKBPerApp),
                run.baseline.map { String($0.pssKBPerReceiver) } ?? "–",
                String(run.lost) + (run.uncleaned > 0 ? " (\(run.uncleaned) not cleaned)" : ""),
                [run.cpuPerPost.bus, run.cpuPerPost.hub, run.cpuPerPost.apps].map { String(Int($0)) }.joined(
                    separator: "/"),
            ]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n")
    }

    private static func pair(_ percentiles: Percentiles?) -> String {
        percentiles.map { number($0.p50) + " / " + number($0.p99) } ?? "–"
    }

    static func number(_ value: Double) -> String { String(format2: value) }
}
