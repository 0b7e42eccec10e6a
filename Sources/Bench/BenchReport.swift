import Foundation
import RunResults

/// One repeat of one fleet size and the two floors run right before it, as `sdlab bench --json`
/// writes it (Docs/outputs.md). Latencies in ms.
public struct BenchSample: Codable, Sendable {
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
    /// Per timed session change (check-in until every app settled); nil without changes.
    public var cpuPerChange: CPUShare?
    /// The machine's cores, for the load below.
    public var cores: Int
    public var floors: Floors
    public var ratio: Ratios

    /// The like-for-like floor (each receiver asks a C broker after posts, as an MSAL app
    /// must) and the plain one (receivers only take the post).
    public struct Floors: Codable, Sendable {
        public var recheck: FloorMeasurement?
        public var plain: FloorMeasurement?

        public init(recheck: FloorMeasurement?, plain: FloorMeasurement?) {
            self.recheck = recheck
            self.plain = plain
        }
    }

    /// sdlab over each floor, measured in the same run.
    public struct Ratios: Codable, Sendable {
        public var recheck: Ratio?
        public var plain: Ratio?
    }

    /// sdlab's p50s over the floor's, CPU per (app, post) over CPU per (receiver, post), and
    /// sdlab's exposure p99 over the cleanup floor's (the recheck floor's session changes).
    public struct Ratio: Codable, Sendable {
        public var deliveryP50: Double
        public var lastDeliveryP50: Double
        public var cpuPerDelivery: Double?
        public var exposureP99: Double?

        enum CodingKeys: String, CodingKey {
            case deliveryP50 = "delivery_p50", lastDeliveryP50 = "last_delivery_p50",
                cpuPerDelivery = "cpu_per_delivery", exposureP99 = "exposure_p99"
        }
    }

    enum CodingKeys: String, CodingKey {
        case apps, signals, gapMs = "gap_ms", delivery = "delivery_ms", lastDelivery = "last_delivery_ms",
            exposure = "exposure_ms", changes, uncleaned, launchSeconds = "launch_s", pssKBPerApp = "pss_kb_per_app",
            lost, cpuPerPost = "cpu_us_per_post", cpuPerChange = "cpu_us_per_change", cores, floors, ratio
    }

    /// The keys that describe the configuration rather than measure it: no range.
    static let configurationKeys: Set<String> = ["apps", "signals", "gap_ms", "changes", "cores"]

    public init(_ measured: FleetMeasurement, gap: Duration, changes: Int, floors: Floors) {
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
        cpuPerChange = measured.cpuPerChange
        cores = ProcessInfo.processInfo.activeProcessorCount
        self.floors = floors
        let ratio = { [delivery, lastDelivery, cpuPerPost, exposure] (floor: FloorMeasurement?) -> Ratio? in
            guard let floor, let delivery, let lastDelivery else { return nil }
            return Ratio(
                deliveryP50: Self.ratio(delivery.p50, floor.perReceiver.p50),
                lastDeliveryP50: Self.ratio(lastDelivery.p50, floor.slowest.p50),
                cpuPerDelivery: floor.cpuPerPost.perReceiver.map { Self.ratio(cpuPerPost.perApp, $0) },
                exposureP99: exposure.flatMap { ours in floor.exposure.map { Self.ratio(ours.p99, $0.p99) } })
        }
        self.ratio = Ratios(recheck: ratio(floors.recheck), plain: ratio(floors.plain))
    }

    /// The share of the machine the bus, the hub and the apps need per post: CPU per post over
    /// the gap times the cores. Near or past 1 the fleet is saturated: posts queue behind one
    /// another, and latencies and their ratios swing from run to run.
    public var load: Double { share(cpuPerPost.bus + cpuPerPost.hub + cpuPerPost.apps) }

    /// The same for the recheck floor: its bus, broker and receivers.
    public var recheckFloorLoad: Double? {
        floors.recheck.map { floor in
            share(
                [floor.cpuPerPost.bus, floor.cpuPerPost.broker, floor.cpuPerPost.receivers].compactMap { $0 }.reduce(
                    0, +))
        }
    }

    private func share(_ microseconds: Double) -> Double {
        gapMs > 0 && cores > 0 ? (microseconds / (gapMs * 1000 * Double(cores)) * 100).rounded() / 100 : 0
    }

    /// One line for a person, as each repeat of a fleet size finishes.
    public var summary: String {
        let ms = { (value: Double?) in value.map { BenchResults.number($0) + " ms" } ?? "–" }
        let pair = { (figure: Percentiles?) in
            figure.map { BenchResults.number($0.p50) + " / " + BenchResults.number($0.p99) + " ms" } ?? "–"
        }
        let cleanupFloor =
            floors.recheck?.exposure.map { floor in
                " (C cleanup \(pair(floor))"
                    + (ratio.recheck?.exposureP99.map { ", p99 " + BenchResults.times($0) } ?? "")
                    + ")"
            } ?? ""
        func against(_ floor: (FloorMeasurement) -> Double, _ figure: (Ratio) -> Double?) -> String {
            let parts = [("C recheck", floors.recheck, ratio.recheck), ("C plain", floors.plain, ratio.plain)]
                .compactMap { name, measured, over -> String? in
                    guard let measured else { return nil }
                    let times = over.flatMap(figure).map { ", " + BenchResults.number($0) + "×" } ?? ""
                    return "\(name) \(ms(floor(measured)))\(times)"
                }
            return parts.isEmpty ? "" : " (" + parts.joined(separator: "; ") + ")"
        }
        return [
            "\(apps) apps: delivery p50 \(ms(delivery?.p50))" + against({ $0.perReceiver.p50 }, { $0.deliveryP50 }),
            "slowest p50 \(ms(lastDelivery?.p50))" + against({ $0.slowest.p50 }, { $0.lastDeliveryP50 }),
            "exposure p50 / p99 \(pair(exposure))" + cleanupFloor, "launch \(BenchResults.number(launchSeconds)) s",
            "PSS \(pssKBPerApp) kB", "lost \(lost)",
            "CPU per (app, post) \(BenchResults.micro(cpuPerPost.perApp)) µs"
                + [("C recheck", floors.recheck), ("C plain", floors.plain)].compactMap { name, floor in
                    floor?.cpuPerPost.perReceiver.map { "\(name) \(BenchResults.micro($0)) µs" }
                }.joined(separator: ", ").wrapped,
        ].joined(separator: ", ")
            + (cpuPerChange.map { ", CPU per (app, change) \(BenchResults.micro($0.perApp)) µs" } ?? "")
            + (load >= 0.9
                ? ", saturated: the posts need \(BenchResults.percent(load)) of \(cores) cores, so ratios swing" : "")
    }

    private static func ratio(_ ours: Double, _ floor: Double) -> Double {
        floor > 0 ? (ours / floor * 100).rounded() / 100 : 0
    }
}

extension String {
    /// " (self)", or nothing when empty.
    fileprivate var wrapped: String { isEmpty ? "" : " (\(self))" }
}

/// One fleet size over its repeats: each figure's median (the middle repeat; of an even count
/// the lower middle one, so every median is a value that was measured) and its range.
public struct BenchRun: Encodable, Sendable {
    public let samples: [BenchSample]
    public let median: BenchSample
    public let minimum: BenchSample
    public let maximum: BenchSample
    /// The JSON object: the median sample's keys, `repeats`, and `range` (the same keys but
    /// the configuration's, each number as `[min, max]`).
    let object: JSONValue

    public var repeats: Int { samples.count }

    public init(samples: [BenchSample]) throws {
        precondition(!samples.isEmpty, "a run has at least one sample")
        self.samples = samples
        let values = try samples.map { try JSONValue(encoding: $0) }
        let (median, minimum, maximum) = JSONValue.aggregate(values)
        (self.median, self.minimum, self.maximum) = try (
            median.decode(BenchSample.self), minimum.decode(BenchSample.self), maximum.decode(BenchSample.self)
        )
        var object = median.object ?? [:]
        object["repeats"] = .number(Double(samples.count))
        object["range"] = .object(
            JSONValue.range(minimum, maximum).object?.filter { !BenchSample.configurationKeys.contains($0.key) } ?? [:])
        self.object = .object(object)
    }

    public func encode(to encoder: any Encoder) throws { try object.encode(to: encoder) }
}

/// The whole sweep: `{"runs": […]}`.
public struct BenchResults: Encodable, Sendable {
    public var runs: [BenchRun]

    public init(runs: [BenchRun]) { self.runs = runs }

    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }

    /// The table printed at the end: one column per fleet size, one row per figure (latencies
    /// in ms, CPU in µs); with repeats, each value is the median and its range (min–max), or
    /// the value alone when every repeat gave it.
    public var table: String {
        let rows: [(String, [(BenchSample) -> Double?], (Double) -> String)] = [
            ("delivery p50 / p99 ms", [{ $0.delivery?.p50 }, { $0.delivery?.p99 }], Self.number),
            (
                "  C recheck", [{ $0.floors.recheck?.perReceiver.p50 }, { $0.floors.recheck?.perReceiver.p99 }],
                Self.number
            ),
            ("  C plain", [{ $0.floors.plain?.perReceiver.p50 }, { $0.floors.plain?.perReceiver.p99 }], Self.number),
            (
                "  p50 ratio to C recheck / plain",
                [{ $0.ratio.recheck?.deliveryP50 }, { $0.ratio.plain?.deliveryP50 }], Self.times
            ),
            ("slowest p50 / p99 ms", [{ $0.lastDelivery?.p50 }, { $0.lastDelivery?.p99 }], Self.number),
            ("  C recheck", [{ $0.floors.recheck?.slowest.p50 }, { $0.floors.recheck?.slowest.p99 }], Self.number),
            ("  C plain", [{ $0.floors.plain?.slowest.p50 }, { $0.floors.plain?.slowest.p99 }], Self.number),
            (
                "  p50 ratio to C recheck / plain",
                [{ $0.ratio.recheck?.lastDeliveryP50 }, { $0.ratio.plain?.lastDeliveryP50 }], Self.times
            ),
            (
                "C recheck check p50 / p99 ms", [{ $0.floors.recheck?.check?.p50 }, { $0.floors.recheck?.check?.p99 }],
                Self.number
            ),
            (
                "  slowest check p50 / p99 ms",
                [{ $0.floors.recheck?.slowestCheck?.p50 }, { $0.floors.recheck?.slowestCheck?.p99 }], Self.number
            ),
            ("exposure p50 / p99 ms", [{ $0.exposure?.p50 }, { $0.exposure?.p99 }], Self.number),
            (
                "  C cleanup", [{ $0.floors.recheck?.exposure?.p50 }, { $0.floors.recheck?.exposure?.p99 }],
                Self.number
            ),
            ("  p99 ratio to C cleanup", [{ $0.ratio.recheck?.exposureP99 }], Self.times),
            ("launch s", [{ $0.launchSeconds }], Self.number),
            (
                "PSS kB app / C recheck / C plain",
                [
                    { Double($0.pssKBPerApp) }, { $0.floors.recheck.map { Double($0.pssKBPerReceiver) } },
                    { $0.floors.plain.map { Double($0.pssKBPerReceiver) } },
                ], Self.integer
            ),
            (
                "lost app / C recheck / C plain",
                [
                    { Double($0.lost) }, { $0.floors.recheck.map { Double($0.lost) } },
                    { $0.floors.plain.map { Double($0.lost) } },
                ], Self.integer
            ),
            (
                "not cleaned (app, change) / C cleanup",
                [{ Double($0.uncleaned) }, { $0.floors.recheck?.uncleaned.map(Double.init) }], Self.integer
            ),
            ("C recheck unchecked (receiver, post)", [{ $0.floors.recheck?.unchecked.map(Double.init) }], Self.integer),
            ("CPU µs per (app, post)", [{ $0.cpuPerPost.perApp }], Self.micro),
            (
                "  C recheck / plain per (receiver, post)",
                [{ $0.floors.recheck?.cpuPerPost.perReceiver }, { $0.floors.plain?.cpuPerPost.perReceiver }], Self.micro
            ),
            (
                "  ratio to C recheck / plain",
                [{ $0.ratio.recheck?.cpuPerDelivery }, { $0.ratio.plain?.cpuPerDelivery }], Self.times
            ),
            ("CPU µs per post: bus", [{ $0.cpuPerPost.bus }], Self.micro),
            (
                "  C recheck / plain bus",
                [{ $0.floors.recheck?.cpuPerPost.bus }, { $0.floors.plain?.cpuPerPost.bus }], Self.micro
            ),
            (
                "CPU µs per post: hub / C broker", [{ $0.cpuPerPost.hub }, { $0.floors.recheck?.cpuPerPost.broker }],
                Self.micro
            ),
            ("CPU µs per post: all apps", [{ $0.cpuPerPost.apps }], Self.micro),
            (
                "  C recheck / plain receivers",
                [{ $0.floors.recheck?.cpuPerPost.receivers }, { $0.floors.plain?.cpuPerPost.receivers }], Self.micro
            ),
            ("CPU load of the posts: sdlab / C recheck", [{ $0.load }, { $0.recheckFloorLoad }], Self.percent),
            ("CPU µs per (app, change)", [{ $0.cpuPerChange?.perApp }], Self.micro),
            (
                "CPU µs per change: bus / hub / all apps",
                [{ $0.cpuPerChange?.bus }, { $0.cpuPerChange?.hub }, { $0.cpuPerChange?.apps }], Self.micro
            ),
        ]
        let repeats = runs.map(\.repeats).max() ?? 1
        let header =
            [repeats > 1 ? "median (min–max) of \(repeats)" : "fleet size"]
            + runs.map { $0.median.apps == 1 ? "1 app" : "\($0.median.apps) apps" }
        let lines =
            [header]
            + rows.map { label, figures, format in
                [label]
                    + runs.map { run in
                        figures.map { figure -> String in
                            guard let median = figure(run.median) else { return "–" }
                            guard run.repeats > 1, let low = figure(run.minimum), let high = figure(run.maximum),
                                format(low) != format(high)
                            else { return format(median) }
                            return format(median) + " (" + format(low).replacingOccurrences(of: "×", with: "") + "–"
                                + format(high) + ")"
                        }.joined(separator: " / ")
                    }
            }
        let widths = (0..<(lines.map(\.count).max() ?? 0)).map { column in
            lines.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0
        }
        return lines.map { cells in
            let line = cells.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
                .joined(separator: "  ")
            return String(line.reversed().drop { $0 == " " }.reversed())
        }.joined(separator: "\n")
    }

    static func number(_ value: Double) -> String { String(format2: value) }
    static func times(_ value: Double) -> String { String(format2: value) + "×" }
    static func integer(_ value: Double) -> String { String(Int(value.rounded())) }
    static func percent(_ value: Double) -> String { String(Int((value * 100).rounded())) + "%" }
    /// µs: one decimal below 10, whole above.
    static func micro(_ value: Double) -> String {
        value < 10 ? String(Double(Int((value * 10).rounded())) / 10) : String(Int(value.rounded()))
    }
}

/// A JSON value, to take the median and range of repeats figure by figure.
enum JSONValue: Codable, Equatable, Sendable {
    case number(Double)
    case string(String)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([String: JSONValue])

    init(encoding value: some Encodable) throws {
        self = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: JSONEncoder().encode(self))
    }

    var object: [String: JSONValue]? {
        if case .object(let members) = self { members } else { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let items = try? container.decode([JSONValue].self) {
            self = .array(items)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let number):
            // Whole numbers as integers, so that integer fields read back.
            if number == number.rounded(), abs(number) < 1e15 {
                try container.encode(Int64(number))
            } else {
                try container.encode(number)
            }
        case .string(let text): try container.encode(text)
        case .bool(let flag): try container.encode(flag)
        case .null: try container.encodeNil()
        case .array(let items): try container.encode(items)
        case .object(let members): try container.encode(members)
        }
    }

    /// Member by member: numbers give their median (the lower middle of an even count), minimum
    /// and maximum; objects are taken key by key over the values that have the key; anything
    /// else is the first value's.
    static func aggregate(_ values: [JSONValue]) -> (median: JSONValue, minimum: JSONValue, maximum: JSONValue) {
        let present = values.filter { $0 != .null }
        guard let first = present.first else { return (.null, .null, .null) }
        let numbers = present.compactMap { if case .number(let number) = $0 { number } else { nil } }
        if numbers.count == present.count {
            let sorted = numbers.sorted()
            return (.number(sorted[(sorted.count - 1) / 2]), .number(sorted[0]), .number(sorted[sorted.count - 1]))
        }
        let objects = present.compactMap(\.object)
        guard objects.count == present.count else { return (first, first, first) }
        var median: [String: JSONValue] = [:]
        var minimum: [String: JSONValue] = [:]
        var maximum: [String: JSONValue] = [:]
        for key in Set(objects.flatMap(\.keys)) {
            (median[key], minimum[key], maximum[key]) = aggregate(objects.compactMap { $0[key] })
        }
        return (.object(median), .object(minimum), .object(maximum))
    }

    /// `minimum` and `maximum` in one: each number as `[min, max]`.
    static func range(_ minimum: JSONValue, _ maximum: JSONValue) -> JSONValue {
        switch (minimum, maximum) {
        case (.number, .number): return .array([minimum, maximum])
        case (.object(let low), .object(let high)):
            return .object(
                low.reduce(into: [:]) { range, member in
                    range[member.key] = Self.range(member.value, high[member.key] ?? .null)
                })
        default: return minimum
        }
    }
}
