import BuiltInApp
import DeviceProcesses
import Foundation
import RunResults

#if canImport(Glibc)
    import Glibc
#endif

/// What one fanout of a floor measured: one emitter, N receivers, the same bus as the fleets.
/// Latencies in ms, as `sdlab bench --json` writes them (Docs/outputs.md).
public struct FloorMeasurement: Sendable, Codable, Equatable {
    /// Post → the receiver popped it, every (receiver, post) pair.
    public var perReceiver: Percentiles
    /// Per post, the slowest receiver.
    public var slowest: Percentiles
    /// With recheck: post → the broker's answer to the call that covered it, every pair.
    public var check: Percentiles?
    /// With recheck: per post, the slowest receiver's check.
    public var slowestCheck: Percentiles?
    public var pssKBPerReceiver: Int
    /// (receiver, post) pairs that never arrived.
    public var lost: Int
    /// With recheck: delivered (receiver, post) pairs no answer covered.
    public var unchecked: Int?
    /// With session changes (the cleanup floor): the broker's commit of a check-in → the
    /// receiver's cleanup ended, every (receiver, timed change) pair cleaned.
    public var exposure: Percentiles?
    /// With session changes: (receiver, timed change) pairs never cleaned.
    public var uncleaned: Int?
    public var cpuPerPost: FloorCPU

    public init(
        perReceiver: Percentiles, slowest: Percentiles, check: Percentiles? = nil, slowestCheck: Percentiles? = nil,
        pssKBPerReceiver: Int, lost: Int, unchecked: Int? = nil, exposure: Percentiles? = nil, uncleaned: Int? = nil,
        cpuPerPost: FloorCPU
    ) {
        self.perReceiver = perReceiver
        self.slowest = slowest
        self.check = check
        self.slowestCheck = slowestCheck
        self.pssKBPerReceiver = pssKBPerReceiver
        self.lost = lost
        self.unchecked = unchecked
        self.exposure = exposure
        self.uncleaned = uncleaned
        self.cpuPerPost = cpuPerPost
    }

    enum CodingKeys: String, CodingKey {
        case perReceiver = "per_rx_ms", slowest = "last_delivery_ms", check = "check_ms",
            slowestCheck = "last_check_ms", pssKBPerReceiver = "pss_kb_per_receiver", lost, unchecked,
            exposure = "exposure_ms", uncleaned, cpuPerPost = "cpu_us_per_post"
    }
}

/// Where a floor's CPU went, in µs per measured post; nil where the floor does not say.
public struct FloorCPU: Sendable, Codable, Equatable {
    public var bus: Double?
    /// The C broker (with recheck).
    public var broker: Double?
    /// Every receiver together.
    public var receivers: Double?
    /// One receiver: CPU per (receiver, post).
    public var perReceiver: Double?

    public init(bus: Double?, broker: Double?, receivers: Double?, perReceiver: Double?) {
        self.bus = bus
        self.broker = broker
        self.receivers = receivers
        self.perReceiver = perReceiver
    }

    enum CodingKeys: String, CodingKey {
        case bus, broker, receivers, perReceiver = "per_receiver"
    }
}

/// The plain-C floor a fleet is held against: plain (receivers only take the post) or with
/// recheck (each receiver also asks a C broker after posts, as an MSAL app must, and, where the
/// floor can, cleans up on session changes as the built-in app's wipe-all does).
public protocol Floor: Sendable {
    /// One emitter to `receivers` processes, `signals` posts `gap` apart, in `directory` (a new
    /// folder the floor may fill); with recheck, then `changes` timed session changes while
    /// each receiver's container holds `records` records (none: `FloorMeasurement.exposure` nil).
    func fanout(
        receivers: Int, signals: Int, gap: Duration, recheck: Bool, changes: Int, records: Int, in directory: String
    ) async throws -> FloorMeasurement
}

/// The floor built with the package (Sources/CFloor, FloorEmitter, FloorReceiver, FloorBroker),
/// run on a private bus started from Bus/device.conf like every device's:
/// 1. with recheck, the broker owns the hub's name and each receiver gets a container such as a
///    built-in app's;
/// 2. the receivers add their match rule and claim their names; the emitter waits for them,
///    sends `warmup` posts and says `ready`;
/// 3. the CPU time of the bus, the broker and every receiver is read, the emitter is told to
///    go, sends the measured posts and says `finished` once every receiver has written its
///    results (and had its checks answered); CPU time is read again, and each receiver's PSS;
/// 4. with recheck, the session changes (`FloorSessionChanges`): the cleanup floor;
/// 5. everything is stopped by its PID and the receivers' files are read.
public struct PackageFloor: Floor {
    /// The folder holding the floor's executables.
    public let folder: String
    public var warmup = 10
    /// Session changes run untimed before the timed ones, as the fleet's are.
    public var warmupChanges = 1
    /// Receivers (numbered from 1) told to leave their records on a check-in: for the bench's own
    /// tests, which check that a change a receiver never cleans is counted.
    public var receiversSkippingCleanupForTests: Set<Int> = []

    public static let executables = ["FloorEmitter", "FloorReceiver", "FloorBroker"]

    /// What the floor's processes print, in its run folder beside the bus's (`RunFolder.busLog`).
    private enum Log: String, CaseIterable {
        case emitter, receivers, broker

        func path(in directory: String) -> String { directory + "/\(rawValue).log" }
    }

    /// What one fanout is asked for.
    private struct Plan {
        let receivers: Int
        let signals: Int
        let gap: Duration
        let recheck: Bool
        let changes: Int
        let records: Int
    }

    /// The floor built beside `executable` (by default the running one: sdlab, or a test
    /// bundle), which `swift build` puts in the same folder.
    public static func locate(nextTo executable: String = DevicePaths.executablePath()) throws(LaunchError)
        -> PackageFloor
    {
        let folder = URL(fileURLWithPath: executable).deletingLastPathComponent().path
        let missing = executables.filter { !FileManager.default.isExecutableFile(atPath: folder + "/" + $0) }
        guard missing.isEmpty else {
            throw LaunchError(
                "the C floor is not built: no \(missing.joined(separator: ", ")) in \(folder) beside \(executable); "
                    + "build the whole package (`swift build -c release`, not only `--product sdlab`)")
        }
        return PackageFloor(folder: folder)
    }

    public init(folder: String) { self.folder = folder }

    /// Throws a `LaunchError` with what failed and what the floor's processes said, or
    /// `CancellationError` once the task is cancelled (everything is stopped either way).
    public func fanout(
        receivers: Int, signals: Int, gap: Duration, recheck: Bool, changes: Int, records: Int, in directory: String
    ) async throws -> FloorMeasurement {
        try await run(
            receivers: receivers, signals: signals, gap: gap, recheck: recheck, changes: changes, records: records,
            in: directory
        ).measurement
    }

    /// What a fanout measured, with every (receiver, timed change)'s exposure in ns behind its
    /// percentiles.
    struct Run {
        var measurement: FloorMeasurement
        var exposures: [UInt64]
    }

    /// `fanout`, with the exposures themselves.
    func run(
        receivers: Int, signals: Int, gap: Duration, recheck: Bool, changes: Int, records: Int, in directory: String
    ) async throws -> Run {
        let plan = Plan(
            receivers: receivers, signals: signals, gap: gap, recheck: recheck, changes: recheck ? changes : 0,
            records: records)
        do {
            return try await run(plan, in: directory)
        } catch let error where !(error is CancellationError) {
            // A launch, a container's write or a broker's call that failed.
            let logs = Log.allCases.map { $0.path(in: directory) }
            let said = (logs + [RunFolder.busLog(in: directory)]).compactMap { log in
                (try? String(contentsOfFile: log, encoding: .utf8))
                    .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap {
                        $0.isEmpty ? nil : "\(URL(fileURLWithPath: log).lastPathComponent): \($0)"
                    }
            }
            throw LaunchError(
                "the C floor (\(recheck ? "recheck" : "plain"), \(receivers) receivers) failed: \(error)"
                    + said.map { "\n" + $0 }.joined())
        }
    }

    private func run(_ plan: Plan, in directory: String) async throws -> Run {
        let bus = try await offPool { Result { () throws(LaunchError) in try BusDaemon.start(in: directory) } }.get()
        var started: [ChildProcess] = []
        let outcome: Result<Run, any Error>
        do {
            outcome = .success(try await measure(plan, in: directory, bus: bus, started: &started))
        } catch {
            outcome = .failure(error)
        }
        // Waiting for processes blocks: off the cooperative pool, which others need meanwhile.
        await offPool { [started] in
            for process in started { process.signal(SIGTERM) }
            for process in started where !process.waitForExit(timeout: .seconds(5)) { process.stop(grace: .zero) }
            bus.stop()
        }
        return try outcome.get()
    }

    private func measure(_ plan: Plan, in directory: String, bus: BusDaemon, started: inout [ChildProcess])
        async throws -> Run
    {
        var broker: ChildProcess?
        if plan.recheck {
            let (process, stdout) = try ChildProcess.spawn(
                folder + "/FloorBroker", [bus.address], stdout: .pipe, stderr: .file(Log.broker.path(in: directory)))
            started.append(process)
            broker = process
            guard try await Self.line(of: process, LineReader(fd: stdout!), within: .seconds(10)) == "ready" else {
                throw LaunchError("FloorBroker did not say ready")
            }
        }
        let receivers = try spawnReceivers(plan, in: directory, bus: bus, started: &started)
        let receiverProcesses = receivers.map(\.process)
        // Close-on-exec from the start: only the emitter's stdin gets the read end.
        guard let pipe = closeOnExecPipe() else { throw LaunchError("pipe: \(errorText())") }
        let ends = [pipe.read, pipe.write]
        let go = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
        let spawned = Result { () throws(LaunchError) in
            try ChildProcess.spawn(
                folder + "/FloorEmitter",
                [bus.address, "\(plan.receivers)", "\(plan.signals)", "\(plan.gap.nanoseconds / 1000)", "\(warmup)"],
                stdout: .pipe, stderr: .file(Log.emitter.path(in: directory)), stdin: ends[0])
        }
        close(ends[0])
        let (emitter, stdout) = try spawned.get()
        started.insert(emitter, at: 0)
        let said = LineReader(fd: stdout!)

        let ready = try await Self.line(
            of: emitter, said, within: .seconds(60) + .milliseconds(100) * plan.receivers,
            watching: receiverProcesses)
        guard ready == "ready" else { throw LaunchError("FloorEmitter did not say ready") }
        let measured = [bus.process.pid] + (broker.map { [$0.pid] } ?? []) + receiverProcesses.map(\.pid)
        let before = CPUTime.sample(measured)
        try? go.write(contentsOf: Data("go\n".utf8))
        let finish = plan.gap * plan.signals + .seconds(150)
        guard let finished = try await Self.line(of: emitter, said, within: finish), finished.hasPrefix("finished")
        else { throw LaunchError("FloorEmitter did not finish") }
        let after = CPUTime.sample(measured)
        let pss = receiverProcesses.map { FleetBench.pssKB(of: $0.pid) }
        let exposure =
            plan.changes > 0
            ? try await FloorSessionChanges(bus: bus.address, receivers: receivers, records: plan.records).run(
                changes: plan.changes, warmup: warmupChanges) : nil

        let files = (1...plan.receivers).map {
            (try? String(contentsOfFile: directory + "/rx.\($0)", encoding: .utf8)) ?? ""
        }
        let deliveries = FloorDeliveries(files: files, signals: plan.signals)
        guard let perReceiver = Percentiles(nanoseconds: deliveries.all),
            let slowest = Percentiles(nanoseconds: deliveries.slowest)
        else { throw LaunchError("no receiver got a post") }
        let perPost = { (pids: [Int32]) in after.microseconds(since: before, of: pids, per: plan.signals) }
        let receiversCPU = perPost(receiverProcesses.map(\.pid))
        let recheck = plan.recheck
        let measurement = FloorMeasurement(
            perReceiver: perReceiver, slowest: slowest,
            check: recheck ? Percentiles(nanoseconds: deliveries.checks) : nil,
            slowestCheck: recheck ? Percentiles(nanoseconds: deliveries.slowestChecks) : nil,
            pssKBPerReceiver: pss.reduce(0, +) / max(pss.count, 1), lost: deliveries.lost(receivers: plan.receivers),
            unchecked: recheck ? deliveries.unchecked : nil,
            exposure: exposure.flatMap { Percentiles(nanoseconds: $0.all) }, uncleaned: exposure?.uncleaned,
            cpuPerPost: FloorCPU(
                bus: perPost([bus.process.pid]), broker: broker.map { perPost([$0.pid]) }, receivers: receiversCPU,
                perReceiver: after.microseconds(
                    since: before, of: receiverProcesses.map(\.pid), per: plan.signals * plan.receivers)))
        return Run(measurement: measurement, exposures: exposure?.all ?? [])
    }

    /// Starts the receivers; with recheck each gets a container such as the built-in app
    /// `appN`'s (`RunFolder.container`), and says what it does on session changes on a pipe.
    private func spawnReceivers(_ plan: Plan, in directory: String, bus: BusDaemon, started: inout [ChildProcess])
        throws -> [FloorReceiver]
    {
        var receivers: [FloorReceiver] = []
        for index in 1...plan.receivers {
            var arguments = [bus.address, "\(index)", directory + "/rx.\(index)"]
            var container: Container?
            if plan.recheck {
                let app = "app\(index)"
                container = try Container(root: RunFolder.container(of: app, in: directory), app: app)
                arguments += ["recheck", container!.root]
                if receiversSkippingCleanupForTests.contains(index) { arguments.append("skip-cleanup-for-tests") }
            }
            let (process, stdout) = try ChildProcess.spawn(
                folder + "/FloorReceiver", arguments, stdout: plan.recheck ? .pipe : .null,
                stderr: .file(Log.receivers.path(in: directory)))
            started.append(process)
            receivers.append(
                FloorReceiver(process: process, said: stdout.map { LineReader(fd: $0) }, container: container))
        }
        return receivers
    }

    /// The next line `process` writes to `reader`: nil after `timeout` or once it has ended
    /// without one. Throws once one of `watching` (receivers, which run until stopped) has
    /// ended or the task is cancelled. Looks every 250 ms, so nothing is read often while posts are timed.
    private static func line(
        of process: ChildProcess, _ reader: LineReader, within timeout: Duration, watching: [ChildProcess] = []
    ) async throws -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let wait = min(.milliseconds(250), ContinuousClock.now.duration(to: deadline))
            if let line = await offPool({ reader.readLine(timeout: wait) }) { return line }
            try Task.checkCancellation()
            // Ended: what it wrote before is still in the pipe, then the end of it.
            guard process.isRunning else { return await offPool { reader.readLine(timeout: .seconds(1)) } }
            if let ended = watching.first(where: { !$0.isRunning }) {
                throw LaunchError(
                    "a receiver (PID \(ended.pid)) ended early (\(ended.reap().map { "\($0)" } ?? "gone"))")
            }
        }
        return nil
    }
}

/// The receivers' files (`SEQ SENT_NS RECEIVED_NS CHECKED_NS` per measured post, CHECKED_NS -1
/// when unchecked) as deliveries and checks, in ns.
struct FloorDeliveries {
    var all: [UInt64] = []
    var slowest: [UInt64] = []
    var checks: [UInt64] = []
    var slowestChecks: [UInt64] = []
    /// (receiver, post) pairs delivered, and those of them no answer covered.
    var delivered = 0
    var unchecked = 0
    let signals: Int

    init(files: [String], signals: Int) {
        self.signals = signals
        var slowestBySeq: [Int: UInt64] = [:]
        var slowestCheckBySeq: [Int: UInt64] = [:]
        for file in files {
            var seen = Set<Int>()
            for line in file.split(separator: "\n") {
                let fields = line.split(separator: " ").map { Int64($0) }
                guard fields.count == 4, let seq = fields[0].map(Int.init), let sent = fields[1],
                    let received = fields[2], let checked = fields[3], (0..<signals).contains(seq),
                    seen.insert(seq).inserted
                else { continue }
                let delivery = UInt64(max(0, received - sent))
                all.append(delivery)
                slowestBySeq[seq] = max(slowestBySeq[seq] ?? 0, delivery)
                if checked >= 0 {
                    let check = UInt64(max(0, checked - sent))
                    checks.append(check)
                    slowestCheckBySeq[seq] = max(slowestCheckBySeq[seq] ?? 0, check)
                } else {
                    unchecked += 1
                }
            }
            delivered += seen.count
        }
        slowest = Array(slowestBySeq.values)
        slowestChecks = Array(slowestCheckBySeq.values)
    }

    func lost(receivers: Int) -> Int { receivers * signals - delivered }
}
