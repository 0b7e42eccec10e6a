import DeviceContract

/// What a scenario's timeline draws (report.html draws it in the browser): a lane per process,
/// marks for session changes, posts, deliveries, callbacks, checks, launches and cleanups,
/// bands for cleanups and exposure windows, all in µs from the first event. Bounded: past
/// `markLimit` marks, each lane's kinds of which there are many are summarised as counts per
/// time bin, so that a storm of a thousand changes is a few hundred shapes, not thousands.
struct TimelineData: Encodable {
    enum Kind: String, Encodable, CaseIterable {
        case change, post, delivery, callback, check, lifecycle, cleanup, cleanupFailed = "cleanup-failed"
        case exposure, open
    }

    /// One event: lane index, µs, kind, the generation it happened under, what a hover shows.
    struct Mark: Encodable, Equatable {
        var lane: Int
        var t: Int
        var kind: Kind
        var generation: UInt64
        var text: String
    }

    /// A stretch of time on a lane: a cleanup, an exposure window, or a bin of summarised marks
    /// (`count` of them).
    struct Band: Encodable, Equatable {
        var lane: Int
        var start: Int
        var end: Int
        var kind: Kind
        var text: String
        var count = 1
    }

    var lanes: [String]
    /// µs from the first event to the last.
    var span: Int
    var marks: [Mark] = []
    var bands: [Band] = []
    /// Kinds drawn as counts per bin on some lane.
    var summarised: [String] = []

    static let markLimit = 1500
    static let binCount = 120

    init(_ report: ScenarioReport) {
        let events = report.events
        let procs = Set(events.map(\.proc))
        lanes = (procs.contains("hub") ? ["hub"] : []) + report.apps.map(\.name).filter(procs.contains)
        guard let first = events.first?.t, let last = events.last?.t else {
            span = 0
            return
        }
        span = Self.micros(last, from: first)
        let lane = Dictionary(uniqueKeysWithValues: lanes.enumerated().map { ($1, $0) })
        var generation: UInt64 = 0
        var cleanupStart: [String: UInt64] = [:]
        for event in events {
            guard let index = lane[event.proc] else { continue }
            if event.is(.sessionChanged) { generation = event.integer(.generation) ?? generation }
            if event.is(.cleanupStarted) { cleanupStart[event.proc] = event.t }
            guard let kind = Self.kind(of: event) else { continue }
            let text = "\(event.proc): \(Self.describe(event))"
            if kind == .cleanup || kind == .cleanupFailed {
                let start = cleanupStart.removeValue(forKey: event.proc) ?? event.t
                bands.append(
                    Band(
                        lane: index, start: Self.micros(start, from: first), end: Self.micros(event.t, from: first),
                        kind: kind, text: text))
            } else {
                marks.append(
                    Mark(
                        lane: index, t: Self.micros(event.t, from: first), kind: kind, generation: generation,
                        text: text))
            }
        }
        for timing in report.shownTimings where timing.exposed {
            guard let index = lane[timing.app] else { continue }
            let what = timing.exposure.map { "\(Double($0) / 1e6) ms" } ?? "open: \(timing.openReason ?? "")"
            bands.append(
                Band(
                    lane: index, start: Self.micros(timing.t0, from: first),
                    end: Self.micros(timing.clean ?? last, from: first), kind: timing.isOpen ? .open : .exposure,
                    text: "\(timing.app): exposure after generation \(timing.generation) (held \(timing.held)): \(what)"
                ))
        }
        summariseIfLarge()
    }

    /// Past `markLimit` marks (or bands), each (lane, kind) with more than a few dozen becomes
    /// a count per bin.
    private mutating func summariseIfLarge() {
        guard marks.count + bands.count > Self.markLimit else { return }
        let binWidth = max(span / Self.binCount, 1)
        struct Key: Hashable { let lane: Int, kind: Kind }
        let crowded = Set(
            Dictionary(
                grouping: marks.map { Key(lane: $0.lane, kind: $0.kind) }
                    + bands.map { Key(lane: $0.lane, kind: $0.kind) }
            ) { $0 }
            .filter { $0.value.count > 40 }.keys)
        struct Bin: Hashable { let key: Key, bin: Int }
        var counts: [Bin: Int] = [:]
        for mark in marks where crowded.contains(Key(lane: mark.lane, kind: mark.kind)) {
            counts[Bin(key: Key(lane: mark.lane, kind: mark.kind), bin: mark.t / binWidth), default: 0] += 1
        }
        for band in bands where crowded.contains(Key(lane: band.lane, kind: band.kind)) {
            counts[Bin(key: Key(lane: band.lane, kind: band.kind), bin: band.start / binWidth), default: 0] += 1
        }
        marks.removeAll { crowded.contains(Key(lane: $0.lane, kind: $0.kind)) }
        bands.removeAll { crowded.contains(Key(lane: $0.lane, kind: $0.kind)) }
        for (bin, count) in counts.sorted(by: { ($0.key.key.lane, $0.key.bin) < ($1.key.key.lane, $1.key.bin) }) {
            let start = bin.bin * binWidth
            bands.append(
                Band(
                    lane: bin.key.lane, start: start, end: min(start + binWidth, span), kind: bin.key.kind,
                    text: "\(lanes[bin.key.lane]): \(count) × \(bin.key.kind.rawValue)", count: count))
        }
        summarised = Array(Set(crowded.map(\.kind.rawValue))).sorted()
    }

    private static func micros(_ t: UInt64, from first: UInt64) -> Int { Int((t - min(t, first)) / 1000) }

    private static func kind(of event: TraceEvent) -> Kind? {
        switch event.name {
        case .sessionChanged, .accountChanged: .change
        case .posted: .post
        case .postReceived: .delivery
        case .callback: .callback
        case .checkStarted: .check
        case .launched, .ready, .terminated: .lifecycle
        case .cleanupFinished: .cleanup
        case .cleanupFailed: .cleanupFailed
        default: nil
        }
    }

    /// `callback name=current-account(none,cou1) trigger=signal`.
    private static func describe(_ event: TraceEvent) -> String {
        ([event.event] + event.fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
            .joined(separator: " ")
    }
}
