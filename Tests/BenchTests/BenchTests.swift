import DeviceContract
import DeviceProcesses
import Foundation
import RunResults
import TestSupport
import Testing

@testable import Bench

/// How `sdlab bench` reads the floors and the apps' traces, what its JSON and table hold, and
/// that the floor built with the package runs.
@Suite struct BenchTests {
    /// `run.sh fanout 2 20 5000` as an external floor prints it.
    static let fanoutOutput = """
        === fanout N=2 M=20 gap_us=5000 warmup=10 recheck=0 (emitter rc=0, receivers failed=0)
        daemon: window_ms=146.1 cpu_ms=1.6 util=1% cpu_ns_per_delivery=26514 ctxsw_vol=32
        per_rx_us p50=82.7 p90=114.5 p99=3889.5 max=3889.5 mean=319.4
        last_rx_us p50=99.2 p90=118.6 p99=3889.5 max=3889.5
        first_rx_us p50=69.1 p99=3870.6
        receiver_cpu_ms total=5.1 per_rx=2.564 (after handshake: total=1.7, per delivery us=42.1, wakeups per delivery=1.55) receiver_maxrss_kb_mean=2698
        rss_kb receiver_VmRSS=2836 receiver_RssAnon=268 receiver_Pss=306 daemon_VmRSS=4788
        TABLE | 2 | 20 | 5000 | 82.7 | 114.5 | 3889.5 | 3889.5 | 99.2 | 3889.5 | 2836 | 4788 / 4788 | 1% | 26514 | 87% | 0% | 3 |
        """

    /// The same with `RECHECK=1`: the checks' lines besides.
    static let recheckOutput =
        fanoutOutput.replacingOccurrences(of: "recheck=0", with: "recheck=1") + """

            per_check_us p50=265.4 p90=320.7 p99=405.4 max=405.4
            last_check_us p50=272.0 p90=322.1 p99=405.4 max=405.4
            """

    static func rounded(_ p: Percentiles?) -> [Double] {
        [p?.p50, p?.p90, p?.p99, p?.max].map { (($0 ?? -1) * 10_000).rounded() / 10_000 }
    }

    @Test func anExternalFloorsOutputIsReadInMilliseconds() throws {
        let plain = try #require(CBaseline.parse(Self.fanoutOutput, recheck: false))
        #expect(Self.rounded(plain.perReceiver) == [0.0827, 0.1145, 3.8895, 3.8895])
        #expect(Self.rounded(plain.slowest) == [0.0992, 0.1186, 3.8895, 3.8895])
        #expect(plain.pssKBPerReceiver == 306 && plain.lost == 3 && plain.check == nil)
        // 1.6 ms of the daemon over 20 + 10 warm-ups + Done; 42.1 µs per delivery, 2 receivers.
        #expect(plain.cpuPerPost == FloorCPU(bus: 51.6, broker: nil, receivers: 84.2, perReceiver: 42.1))
        #expect(
            CBaseline.parse("=== fanout N=2\nper_rx_us p50=1", recheck: false) == nil, "a cut-off output is no result")

        let recheck = try #require(CBaseline.parse(Self.recheckOutput, recheck: true))
        #expect(Self.rounded(recheck.check) == [0.2654, 0.3207, 0.4054, 0.4054])
        #expect(Self.rounded(recheck.slowestCheck) == [0.272, 0.3221, 0.4054, 0.4054])
        #expect(CBaseline.parse(Self.fanoutOutput, recheck: true) == nil, "a recheck floor without checks is no result")
    }

    @Test func theFloorsFilesGiveDeliveriesChecksAndLosses() {
        // Receiver 1 got posts 0 and 1 (1 unchecked), receiver 2 only post 0, twice.
        let files = [
            "0 1000 1100 1500\n1 2000 2300 -1\n",
            "0 1000 1200 1600\n0 1000 1250 1700\n-1 500 600 -1\nnot a line\n",
        ]
        let floor = FloorDeliveries(files: files, signals: 2)
        #expect(floor.all.sorted() == [100, 200, 300])
        #expect(floor.slowest.sorted() == [200, 300])
        #expect(floor.checks.sorted() == [500, 600])
        #expect(floor.slowestChecks == [600])
        #expect(floor.lost(receivers: 2) == 1 && floor.unchecked == 1)
    }

    static func received(_ t: UInt64, serial: Int, from sender: String = ":1.9") -> TraceEvent {
        TraceEvent(
            t: t, proc: "app", event: "post-received",
            fields: ["sender": .string(sender), "serial": .uint(UInt64(serial))])
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

    static func sample(delivery: UInt64, appCPU: Double, floorScale: Double) throws -> BenchSample {
        let measured = FleetMeasurement(
            apps: 2, signals: 3, deliveries: [delivery, 2 * delivery], slowestDeliveries: [2 * delivery],
            exposures: [5_000_000], uncleaned: 0, launchSeconds: 0.25, pssKB: [3000, 3100],
            lost: 0, cpuPerPost: CPUShare(bus: 10, hub: 5, apps: 2 * appCPU, perApp: appCPU),
            cpuPerChange: CPUShare(bus: 300, hub: 100, apps: 8 * appCPU, perApp: 4 * appCPU))
        var plain = try #require(CBaseline.parse(fanoutOutput, recheck: false))
        var recheck = try #require(CBaseline.parse(recheckOutput, recheck: true))
        plain.perReceiver.p50 *= floorScale
        recheck.perReceiver.p50 *= 2 * floorScale
        // The cleanup floor: 0.5 ms at the median, 2.5 ms at p99 (1.25 ms at twice the scale).
        recheck.exposure = Percentiles(milliseconds: 0.5, 1, 2.5 / floorScale, 3)
        recheck.uncleaned = 0
        return BenchSample(
            measured, gap: .milliseconds(5), changes: 1, floors: .init(recheck: recheck, plain: plain))
    }

    @Test func theJSONHasBothFloorsRatiosAndTheRangesOfRepeats() throws {
        // Three repeats: the median is the middle one, figure by figure.
        let samples = try [
            Self.sample(delivery: 100_000, appCPU: 40, floorScale: 1),
            Self.sample(delivery: 300_000, appCPU: 60, floorScale: 1),
            Self.sample(delivery: 200_000, appCPU: 50, floorScale: 2),
        ]
        let results = try BenchResults(runs: [BenchRun(samples: samples)])
        let object = try #require(JSONSerialization.jsonObject(with: results.json()) as? [String: Any])
        let run = try #require((object["runs"] as? [[String: Any]])?.first)
        for key in [
            "apps", "signals", "gap_ms", "changes", "delivery_ms", "last_delivery_ms", "exposure_ms", "launch_s",
            "pss_kb_per_app", "lost", "uncleaned", "cpu_us_per_post", "cpu_us_per_change", "cores", "floors", "ratio",
            "repeats", "range",
        ] {
            #expect(run[key] != nil, "\(key)")
        }
        #expect(run["repeats"] as? Int == 3 && run["pss_kb_per_app"] as? Int == 3050)
        #expect((run["delivery_ms"] as? [String: Double])?["p50"] == 0.2)
        #expect(
            (run["cpu_us_per_post"] as? [String: Double]) == ["bus": 10, "hub": 5, "apps": 100, "per_app": 50])
        #expect(
            (run["cpu_us_per_change"] as? [String: Double]) == ["bus": 300, "hub": 100, "apps": 400, "per_app": 200])
        let floors = try #require(run["floors"] as? [String: [String: Any]])
        #expect(floors.keys.sorted() == ["plain", "recheck"])
        #expect(
            floors["recheck"]?.keys.sorted() == [
                "check_ms", "cpu_us_per_post", "exposure_ms", "last_check_ms", "last_delivery_ms", "lost", "per_rx_ms",
                "pss_kb_per_receiver", "uncleaned",
            ])
        #expect(floors["plain"]?["check_ms"] == nil, "the plain floor has no checks")
        #expect(floors["plain"]?["exposure_ms"] == nil, "the plain floor has no session changes")
        // Per repeat against the plain floor: delivery 0.1 / 0.0827, 0.3 / 0.0827 and 0.2 / 0.1654;
        // slowest 0.2, 0.6 and 0.4 over 0.0992; CPU 40, 60 and 50 over 42.1.
        let ratio = try #require(run["ratio"] as? [String: [String: Double]])
        #expect(ratio["plain"] == ["delivery_p50": 1.21, "last_delivery_p50": 4.03, "cpu_per_delivery": 1.19])
        #expect(ratio["recheck"]?["delivery_p50"] == 0.6)
        // Exposure p99 5 ms over the cleanup floor's 2.5, 2.5 and 1.25 ms.
        #expect(ratio["recheck"]?["exposure_p99"] == 2)

        let range = try #require(run["range"] as? [String: Any])
        #expect(range["apps"] == nil && range["signals"] == nil, "the configuration has no range")
        #expect((range["delivery_ms"] as? [String: [Double]])?["p50"] == [0.1, 0.3])
        #expect((range["ratio"] as? [String: [String: [Double]]])?["plain"]?["delivery_p50"] == [1.21, 3.63])
        #expect(
            ((range["floors"] as? [String: Any])?["plain"] as? [String: Any]).flatMap {
                ($0["per_rx_ms"] as? [String: [Double]])?["p50"]
            } == [0.0827, 0.1654])

        let table = results.table
        #expect(table.hasPrefix("median (min–max) of 3"), "\(table)")
        #expect(table.contains("0.20 (0.10–0.30)"), "the delivery p50 and its range: \(table)")
        #expect(table.contains("p50 ratio to C recheck / plain"), "\(table)")
        #expect(table.contains("1.21× (1.21–3.63×)"), "\(table)")
        #expect(table.contains("CPU µs per (app, post)") && table.contains("50 (40–60)"), "\(table)")
        #expect(table.contains("CPU µs per (app, change)") && table.contains("200 (160–240)"), "\(table)")
        #expect(table.contains("CPU load of the posts: sdlab / C recheck"), "\(table)")
        #expect(table.contains("  C cleanup") && table.contains("0.50 / 2.50 (1.25–2.50)"), "\(table)")
        #expect(table.contains("  p99 ratio to C cleanup") && table.contains("2.00× (2.00–4.00×)"), "\(table)")
        #expect(table.contains("not cleaned (app, change) / C cleanup"), "\(table)")
        #expect(
            samples[0].summary.contains("exposure p50 / p99 5.00 / 5.00 ms (C cleanup 0.50 / 2.50 ms, p99 2.00×)"),
            "\(samples[0].summary)")
        let svg = BenchPlot.svg(results)
        #expect(
            svg.hasPrefix("<svg") && svg.hasSuffix("</svg>\n") && svg.contains("C recheck floor, slowest receiver p50"))
    }

    /// The share of the machine a fleet's posts need, and the warning when that is all of it.
    @Test func aSaturatedFleetIsSaidToBeSo() throws {
        var quiet = try Self.sample(delivery: 100_000, appCPU: 40, floorScale: 1)
        quiet.cores = 2
        // (10 bus + 5 hub + 80 apps) µs per 5 ms post on 2 cores.
        #expect(quiet.load == 0.01 && !quiet.summary.contains("saturated"), "\(quiet.summary)")
        var busy = try Self.sample(delivery: 100_000, appCPU: 4_800, floorScale: 1)
        busy.cores = 2
        #expect(busy.load == 0.96, "\(busy.load)")
        #expect(busy.summary.hasSuffix("saturated: the posts need 96% of 2 cores, so ratios swing"), "\(busy.summary)")
    }

    @Test func anEvenNumberOfRepeatsTakesTheLowerMiddleAsItsMedian() {
        let values: [JSONValue] = [
            .object(["a": .number(4), "b": .null]), .object(["a": .number(1), "b": .number(7)]),
        ]
        let (median, minimum, maximum) = JSONValue.aggregate(values)
        #expect(median == .object(["a": .number(1), "b": .number(7)]))
        #expect(
            JSONValue.range(minimum, maximum)
                == .object(["a": .array([.number(1), .number(4)]), "b": .array([.number(7), .number(7)])]))
    }

    @Test func cpuTimeCountsWhatAProcessUsedBetweenTwoSamples() {
        let me = getpid()
        let before = CPUTime.sample([me])
        var start = timespec(), now = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &start)
        repeat {
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
        } while (now.tv_sec - start.tv_sec) * 1_000_000_000
            + (now.tv_nsec - start.tv_nsec) < 30_000_000
        let used = CPUTime.sample([me]).microseconds(since: before, of: [me])
        #expect(used >= 25_000, "30 ms of CPU spent, \(used) µs counted")
    }

    /// The floor built beside this test bundle, two receivers, ten posts: every (receiver, post)
    /// delivered, and with recheck every delivered post checked by the C broker.
    @Test(.tags(.device), .devicesWanted, .timeLimit(.minutes(3)))
    func theBuiltFloorDeliversEveryPostAndChecksItWithRecheck() async throws {
        let floor = try PackageFloor.locate()
        for recheck in [false, true] {
            let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-floor-test")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let measured = try await floor.fanout(
                receivers: 2, signals: 10, gap: .milliseconds(2), recheck: recheck, changes: 0, records: 1, in: folder)
            #expect(measured.lost == 0, "recheck: \(recheck)")
            #expect(measured.perReceiver.p50 > 0 && measured.slowest.p50 >= measured.perReceiver.p50)
            #expect(measured.pssKBPerReceiver > 0)
            #expect((measured.cpuPerPost.perReceiver ?? 0) > 0 && (measured.cpuPerPost.bus ?? 0) > 0)
            if recheck {
                #expect(measured.unchecked == 0, "every delivered post was checked")
                let check = try #require(measured.check)
                #expect(check.p50 >= measured.perReceiver.p50, "a post is checked after it arrived")
                #expect(measured.slowestCheck != nil && (measured.cpuPerPost.broker ?? 0) > 0)
                #expect(measured.exposure == nil && measured.uncleaned == nil, "no session changes were asked for")
            } else {
                #expect(measured.check == nil && measured.unchecked == nil && measured.cpuPerPost.broker == nil)
            }
            #expect(LiveProcesses.mentioning(folder).isEmpty, "the floor stops everything it started")
        }
    }

    /// A receiver that cannot start ends the floor at once, with what it said.
    @Test(.tags(.device), .devicesWanted, .timeLimit(.minutes(3)))
    func aFailingFloorSaysWhatFailed() async throws {
        let built = try PackageFloor.locate()
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-floor-test")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tools = folder + "/tools"
        try FileManager.default.createDirectory(atPath: tools, withIntermediateDirectories: true)
        for tool in ["FloorEmitter", "FloorBroker"] {
            try FileManager.default.createSymbolicLink(
                atPath: tools + "/" + tool, withDestinationPath: built.folder + "/" + tool)
        }
        try writeProgram(
            "#!/bin/sh\necho 'FloorReceiver: cannot connect to the bus' >&2\nexit 2\n", to: tools + "/FloorReceiver")
        let run = folder + "/run"
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        await #expect {
            try await PackageFloor(folder: tools).fanout(
                receivers: 2, signals: 5, gap: .milliseconds(2), recheck: true, changes: 1, records: 1, in: run)
        } throws: { error in
            let text = "\(error)"
            return text.contains("the C floor (recheck, 2 receivers) failed: a receiver (PID")
                && text.contains("ended early (exit code 2)")
                && text.contains("receivers.log: FloorReceiver: cannot connect to the bus")
        }
        #expect(LiveProcesses.mentioning(run).isEmpty, "the floor stops everything it started")
    }

    /// The cleanup floor with a receiver told to skip its cleanup: the other's every timed change
    /// is timed, the skipped ones are counted, and each container is left as its receiver left it.
    @Test(.tags(.device), .devicesWanted, .timeLimit(.minutes(3)))
    func aReceiverThatNeverCleansIsCountedAsUncleaned() async throws {
        var floor = try PackageFloor.locate()
        floor.receiversSkippingCleanupForTests = [2]
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-floor-test")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try await floor.run(
            receivers: 2, signals: 5, gap: .milliseconds(2), recheck: true, changes: 2, records: 10, in: folder)
        #expect(run.exposures.count == 2 && run.exposures.allSatisfy { $0 > 0 }, "\(run.exposures)")
        #expect(run.measurement.uncleaned == 2, "receiver 2's two timed changes")
        #expect(try Self.recordFiles(in: RunFolder.container(of: "app1", in: folder)).isEmpty)
        // The warm-up change's records of cou1, the first timed one's of cou2, the second's of cou1.
        #expect(
            try Self.recordFiles(in: RunFolder.container(of: "app2", in: folder)) == [
                "documents/cou1/plain-1-10.txt", "documents/cou1/plain-11-20.txt", "documents/cou2/plain-1-10.txt",
            ])
        #expect(LiveProcesses.mentioning(folder).isEmpty, "the floor stops everything it started")
    }

    /// `sdlab bench` at the smallest scale: two apps, a few posts, two timed changes. Its cleanup
    /// floor timed each (receiver, timed change) and left every container as the built-in app's
    /// wipe-all leaves one: no record, the container's four folders kept.
    @Test(.tags(.device), .devicesWanted, .timeLimit(.minutes(3)))
    func aBenchRunHoldsExposureAgainstTheCleanupFloor() async throws {
        let folders = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-bench-test")
        defer { try? TreeRemoval.remove(folders) }
        let json = folders + "/bench.json"
        let bench = try await TestSupport.run(
            sdlabPath,
            [
                "bench", "--apps", "2", "--signals", "5", "--gap", "2ms", "--changes", "2", "--records", "10",
                "--json", json, "--keep", "--folder", folders,
            ], timeout: .seconds(50))
        #expect(bench.status == 0, "\(bench.stderr)")
        #expect(bench.stdout.contains("(C cleanup "), "the fleet's line: \(bench.stdout)")
        #expect(bench.stdout.contains("  p99 ratio to C cleanup"), "the table: \(bench.stdout)")

        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json)))
        let run = try #require(((document as? [String: Any])?["runs"] as? [[String: Any]])?.first)
        #expect(run["exposure_ms"] != nil && run["uncleaned"] as? Int == 0, "the fleet's own exposure")
        let cleanup = try #require((run["floors"] as? [String: [String: Any]])?["recheck"])
        // None of the 2 receivers' 2 timed changes uncleaned: each has its exposure.
        #expect(cleanup["uncleaned"] as? Int == 0)
        let exposure = try #require(cleanup["exposure_ms"] as? [String: Double])
        #expect((exposure["p50"] ?? 0) > 0 && (exposure["max"] ?? 0) >= (exposure["p50"] ?? 0), "\(exposure)")
        #expect(((run["ratio"] as? [String: [String: Double]])?["recheck"]?["exposure_p99"] ?? 0) > 0)

        let kept = try FileManager.default.contentsOfDirectory(atPath: folders).map { folders + "/" + $0 }
        let cleanupFloor = try #require(
            kept.first {
                $0.contains("sdlab-floor") && FileManager.default.fileExists(atPath: RunFolder.containers(in: $0))
            },
            "the recheck floor's folder, kept: \(kept)")
        for app in ["app1", "app2"] {
            let container = RunFolder.container(of: app, in: cleanupFloor)
            #expect(try Self.recordFiles(in: container).isEmpty, "\(app)")
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: container).sorted() == [
                    "caches", "documents", "keychain", "preferences",
                ])
        }
    }

    /// The files beneath `container`'s record folders (`documents`, `caches`, `preferences`),
    /// relative to it, sorted.
    static func recordFiles(in container: String) throws -> [String] {
        try ["caches", "documents", "preferences"].flatMap { folder in
            try FileManager.default.subpathsOfDirectory(atPath: container + "/" + folder).map { folder + "/" + $0 }
                .filter { path in
                    var isFolder: ObjCBool = false
                    return FileManager.default.fileExists(atPath: container + "/" + path, isDirectory: &isFolder)
                        && !isFolder.boolValue
                }
        }.sorted()
    }

    @Test func aFloorThatIsNotBuiltSaysWhatIsMissingAndWhere() {
        #expect {
            try PackageFloor.locate(nextTo: "/nonexistent/sdlab")
        } throws: { error in
            "\(error)".contains("no FloorEmitter, FloorReceiver, FloorBroker in /nonexistent")
        }
    }
}

/// Writes an executable script through a descriptor closed on exec: a child another test
/// spawns meanwhile must not inherit it open for writing, or the script could not run
/// ("Text file busy").
func writeProgram(_ text: String, to path: String) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
    guard fd >= 0 else { throw POSIXError(.EIO) }
    defer { close(fd) }
    let bytes = Array(text.utf8)
    guard bytes.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == bytes.count else { throw POSIXError(.EIO) }
}
