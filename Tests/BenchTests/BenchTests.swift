import DeviceContract
import Foundation
import Runner
import Testing

@testable import Bench

/// How `sdlab bench` reads the C baseline and the apps' traces, and what its JSON holds.
@Suite struct BenchTests {
    /// `run.sh fanout 2 20 5000` as the baseline prints it.
    static let fanoutOutput = """
        === fanout N=2 M=20 gap_us=5000 warmup=10 (emitter rc=0, receivers failed=0)
        daemon: window_ms=146.1 cpu_ms=1.6 util=1% cpu_ns_per_delivery=26514 ctxsw_vol=32
        per_rx_us p50=82.7 p90=114.5 p99=3889.5 max=3889.5 mean=319.4
        last_rx_us p50=99.2 p90=118.6 p99=3889.5 max=3889.5
        first_rx_us p50=69.1 p99=3870.6
        rss_kb receiver_VmRSS=2836 receiver_RssAnon=268 receiver_Pss=306 daemon_VmRSS=4788
        TABLE | 2 | 20 | 5000 | 82.7 | 114.5 | 3889.5 | 3889.5 | 99.2 | 3889.5 | 2836 | 4788 / 4788 | 1% | 26514 | 87% | 0% | 3 |
        """

    @Test func theBaselineOutputIsReadInMilliseconds() throws {
        let fanout = try #require(CBaseline.parse(Self.fanoutOutput))
        let rounded = { (p: Percentiles) in [p.p50, p.p90, p.p99, p.max].map { ($0 * 10_000).rounded() / 10_000 } }
        #expect(rounded(fanout.perReceiver) == [0.0827, 0.1145, 3.8895, 3.8895])
        #expect(rounded(fanout.slowest) == [0.0992, 0.1186, 3.8895, 3.8895])
        #expect(fanout.pssKBPerReceiver == 306 && fanout.lost == 3)
        #expect(CBaseline.parse("=== fanout N=2\nper_rx_us p50=1") == nil, "a cut-off output is no result")
    }

    static func received(_ t: UInt64, serial: Int, from sender: String = ":1.9") -> TraceEvent {
        TraceEvent(t: t, proc: "app", event: "post-received", fields: ["sender": sender, "serial": "\(serial)"])
    }

    @Test func deliveriesArePairedWithTheirPostsBySenderAndSerial() {
        let sent: [UInt32: UInt64] = [10: 1_000, 11: 2_000, 12: 3_000]
        let traces = [
            [Self.received(1_100, serial: 10), Self.received(2_300, serial: 11), Self.received(3_050, serial: 12)],
            [
                Self.received(1_200, serial: 10), Self.received(1_250, serial: 10), Self.received(3_400, serial: 12),
                Self.received(2_100, serial: 11, from: ":1.4"),
            ],  // a duplicate, and another sender's post
        ]
        let timing = DeliveryTiming(sent: sent, sender: ":1.9", traces: traces)
        #expect(timing.all.sorted() == [50, 100, 200, 300, 400])
        #expect(timing.slowest.sorted() == [200, 300, 400])
        #expect(timing.lost == 1, "the second app never got serial 11 from the bench")
    }

    @Test func eachCommitIsTimedToEachAppsNextCleanup() {
        let cleanup = { (t: UInt64) in TraceEvent(t: t, proc: "app", event: "cleanup-finished") }
        let timing = ExposureTiming(
            commits: [1_000, 5_000],
            traces: [
                [cleanup(1_700), cleanup(5_900)],
                [cleanup(6_000)],  // missed the first change
            ])
        #expect(timing.all.sorted() == [700, 900, 1_000])
        #expect(timing.uncleaned == 1)
    }

    @Test func theJSONHasTheFieldsOfSpecSection7() throws {
        let measured = FleetMeasurement(
            apps: 2, signals: 3, deliveries: [100_000, 200_000], slowestDeliveries: [200_000],
            exposures: [5_000_000], uncleaned: 0, launchSeconds: 0.25, pssKB: [3000, 3100],
            lost: 0, cpuPerPost: CPUShare(bus: 10, hub: 5, apps: 40))
        let baseline = try #require(CBaseline.parse(Self.fanoutOutput))
        let results = BenchResults(runs: [BenchRun(measured, gap: .milliseconds(5), changes: 1, baseline: baseline)])
        let object = try #require(JSONSerialization.jsonObject(with: results.json()) as? [String: Any])
        let run = try #require((object["runs"] as? [[String: Any]])?.first)
        for key in [
            "apps", "signals", "delivery_ms", "last_delivery_ms", "exposure_ms", "launch_s", "pss_kb_per_app",
            "lost", "baseline", "ratio",
        ] {
            #expect(run[key] != nil, "\(key)")
        }
        #expect((run["delivery_ms"] as? [String: Double])?.keys.sorted() == ["max", "p50", "p90", "p99"])
        #expect(
            ((run["baseline"] as? [String: Any])?.keys.sorted()) == [
                "last_delivery_ms", "lost", "per_rx_ms", "pss_kb_per_receiver",
            ])
        #expect((run["ratio"] as? [String: Double]) == ["last_delivery_p50": 2.02, "delivery_p50": 1.21])
        #expect(run["pss_kb_per_app"] as? Int == 3050)
        #expect(results.table.contains("1.21×") && results.table.contains("2.02×"))
        let svg = BenchPlot.svg(results)
        #expect(svg.hasPrefix("<svg") && svg.hasSuffix("</svg>\n") && svg.contains("C baseline, slowest receiver p50"))
    }
}
