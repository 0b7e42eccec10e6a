import DBusKit
import DeviceContract
import DeviceLaunch
import DeviceProcesses
import Foundation
import HubFiles
import SharedDevice

/// What `sdlab bench` measures for one fleet size on a device of its own.
public struct FleetMeasurement: Sendable {
    public var apps: Int
    public var signals: Int
    /// Post → the app's SDK saw it, every (app, post) pair, in nanoseconds.
    public var deliveries: [UInt64]
    /// Per post, the slowest app's delivery.
    public var slowestDeliveries: [UInt64]
    /// Session change (the hub's commit) → the app's cleanup finished, every (app, change) pair.
    public var exposures: [UInt64]
    /// (app, change) pairs whose cleanup never finished.
    public var uncleaned: Int
    /// Spawn of the first app → every app ready.
    public var launchSeconds: Double
    /// Proportional set size of each app, sampled at the end.
    public var pssKB: [Int]
    /// (app, post) pairs that never arrived.
    public var lost: Int
    /// CPU time per measured post from just before the first is sent until every app has
    /// settled, in µs: the bus, the hub, every app together and one app.
    public var cpuPerPost: CPUShare
    /// CPU time per timed session change, from the check-in until every app has settled
    /// (cleanups and their confirming scans): what exposure at fleet scale is made of. nil
    /// without timed changes.
    public var cpuPerChange: CPUShare?
}

/// The processes of a fleet whose CPU time the bench reads.
struct FleetProcesses {
    let bus: Int32
    let hub: Int32
    let apps: [Int32]

    var all: [Int32] { [bus, hub] + apps }
}

/// Where the CPU went, in µs per measured post or session change (CPUTime: user + system,
/// thread by thread).
public struct CPUShare: Sendable, Codable, Equatable {
    public var bus: Double
    public var hub: Double
    /// Every app together.
    public var apps: Double
    /// One app: CPU per (app, post) or (app, change).
    public var perApp: Double

    public init(bus: Double, hub: Double, apps: Double, perApp: Double) {
        self.bus = bus
        self.hub = hub
        self.apps = apps
        self.perApp = perApp
    }

    enum CodingKeys: String, CodingKey {
        case bus, hub, apps, perApp = "per_app"
    }

    /// What the processes used between two samples, per one of `count` events.
    init(
        from before: CPUTime, to after: CPUTime, of processes: FleetProcesses, per count: Int
    ) {
        let per = { (pids: [Int32]) in after.microseconds(since: before, of: pids, per: count) }
        self.init(
            bus: per([processes.bus]), hub: per([processes.hub]), apps: per(processes.apps),
            perApp: after.microseconds(since: before, of: processes.apps, per: count * processes.apps.count))
    }

    /// The mean of several shares; nil for none.
    static func mean(_ shares: [CPUShare]) -> CPUShare? {
        guard !shares.isEmpty else { return nil }
        let mean = { (part: (CPUShare) -> Double) in
            CPUTime.tenths(shares.map(part).reduce(0, +) / Double(shares.count))
        }
        return CPUShare(bus: mean(\.bus), hub: mean(\.hub), apps: mean(\.apps), perApp: mean(\.perApp))
    }
}

/// One fleet of background-mode MSAL apps (wipe-all) on a device of its own:
/// 1. the fleet is launched at once and timed until every app is ready;
/// 2. the bench posts `signals` account-change notifications `gap` apart on an absolute
///    schedule, each a hint that every app answers with a check, and times each delivery
///    from the apps' traces (each post is named there by its sender and serial); nobody is
///    signed in yet, so every check gets the empty answer the C broker gives;
/// 3. `changes` check-ins end a session while every app holds `records` records of its
///    user, and each app's exposure runs from the hub's commit to its cleanup's end (after one
///    untimed change: an app's first cleanup pays for its first file writes and code paths);
/// 4. each app's PSS is read from /proc.
public struct FleetBench: Sendable {
    public var apps: Int
    public var signals: Int
    public var gap: Duration
    public var changes: Int
    public var records: Int
    public var warmup = 10
    public var warmupChanges = 1
    /// A team's app to run the fleet of instead of `sdlab-app` (its cleanup its own code).
    public var executable: String?
    /// Told what is happening, for a person watching.
    public var progress: @Sendable (String) -> Void = { _ in }
    /// The workers who take turns: the first checks out before the first change.
    static let users = ["cou1", "cou2"]

    public init(apps: Int, signals: Int, gap: Duration, changes: Int, records: Int) {
        self.apps = apps
        self.signals = signals
        self.gap = gap
        self.changes = changes
        self.records = records
    }

    /// Runs the bench in `directory` (a new run folder) and stops every process it started.
    public func run(in directory: String) async throws -> FleetMeasurement {
        let setup = HubSetup(policy: .init(broadcastOnSignIn: true))
        let device = try await RunningDevice.start(in: directory, detached: false, setup: setup)
        var launched: [LaunchedApp] = []
        defer {
            progress("stopping \(launched.count) apps")
            Self.stop(launched)
            device.stop()
        }
        let connection = try await Connection.connect(to: device.bus.address)
        defer { Task { await connection.close() } }
        let users = Self.users
        try await connection.callHub(HubMethod.enroll, [.string("stage"), .string("stage")])

        // Every delivery is timed from its trace line, so no post goes untraced here.
        let specs = (1...apps).map {
            AppSpec(
                name: "app\($0)", sdk: .msal, backgroundMode: true, cleanup: executable == nil ? .wipeAll : .own(),
                executable: executable, tracedPostsPerSecond: 0)
        }
        let launch = try await launchAll(specs, bus: device.bus.address, in: directory, connection: connection)
        launched = launch.apps
        let clients = launched.map { AppClient(connection, app: $0, timeout: .seconds(60)) }

        // Posted while nobody is signed in: the hub then answers each check as the C broker
        // does, with no account, so both sides do the same work per post.
        let processes = FleetProcesses(
            bus: device.bus.process.pid, hub: device.hub.pid, apps: launched.map(\.process.pid))
        let (sent, cpu) = try await post(on: connection, clients: clients, measuring: processes)
        try await connection.callHub(HubMethod.checkOut, [.string(users[0]), .string(users[0])])
        try await eachApp(clients) { try await $0.settle() }
        try await eachApp(clients) { try await $0.write(.plain, count: records) }
        var exposureStarts: [UInt64] = []
        var changeCPU: [CPUShare] = []
        for change in 0..<(warmupChanges + changes) {
            let timed = change >= warmupChanges
            progress(
                timed ? "session change \(change - warmupChanges + 1) of \(changes)" : "warming up a session change")
            let before = CPUTime.sample(processes.all)
            let start = try await endSession(on: connection, clients: clients)
            if timed {
                exposureStarts.append(start)
                changeCPU.append(CPUShare(from: before, to: CPUTime.sample(processes.all), of: processes, per: 1))
            }
            let next = users[(change + 1) % users.count]
            try await connection.callHub(HubMethod.checkOut, [.string(next), .string(next)])
            try await eachApp(clients) { try await $0.settle() }
            try await eachApp(clients) { try await $0.write(.plain, count: records) }
        }
        let pss = launched.map { Self.pssKB(of: $0.process.pid) }

        progress("reading the traces")
        let traces = specs.map { TraceEvent.events(in: RunFolder.trace(of: $0.name, in: directory)) }
        let commits = TraceEvent.events(in: RunFolder.hubTrace(in: directory))
            .filter { $0.is(.sessionChanged) && $0[.state] == "checked-in" }.map(\.t)
        let deliveries = DeliveryTiming(sent: sent, sender: connection.uniqueName, traces: traces)
        let exposure = ExposureTiming(commits: commits.filter { $0 >= (exposureStarts.first ?? .max) }, traces: traces)
        return FleetMeasurement(
            apps: apps, signals: signals, deliveries: deliveries.all, slowestDeliveries: deliveries.slowest,
            exposures: exposure.all, uncleaned: exposure.uncleaned,
            launchSeconds: launch.seconds, pssKB: pss, lost: deliveries.lost, cpuPerPost: cpu,
            cpuPerChange: CPUShare.mean(changeCPU))
    }

    /// Spawns every app at once; returns once each has said `ready`.
    private func launchAll(
        _ specs: [AppSpec], bus: String, in directory: String, connection: Connection
    ) async throws
        -> (apps: [LaunchedApp], seconds: Double)
    {
        progress("launching \(specs.count) apps")
        let start = ContinuousClock.now
        let apps = try await withThrowingTaskGroup(of: LaunchedApp.self) { group in
            for spec in specs {
                group.addTask {
                    try await LaunchedApp.launch(
                        spec, bus: bus, in: directory, connection: connection, timeout: .seconds(60))
                }
            }
            var apps: [LaunchedApp] = []
            do {
                for try await app in group {
                    apps.append(app)
                    progress("launching: \(apps.count) of \(specs.count) ready")
                }
            } catch {
                Self.stop(apps)
                throw error
            }
            return apps
        }
        let seconds = Double((ContinuousClock.now - start).nanoseconds) / 1e9
        return (apps.sorted { $0.spec.name < $1.spec.name }, seconds)
    }

    /// Posts `warmup` unmeasured notifications, lets every app settle, then the measured ones
    /// on an absolute schedule, and lets every app settle again. Returns (serial, send time).
    private func post(
        on connection: Connection, clients: [AppClient], measuring processes: FleetProcesses
    )
        async throws -> (sent: [UInt32: UInt64], cpu: CPUShare)
    {
        progress("warming up")
        _ = try await offPool { [self] in Self.schedule(warmup, gap: gap, on: connection) }.get()
        try await eachApp(clients) { try await $0.settle() }
        progress("posting \(signals) notifications \(gap) apart")
        let before = CPUTime.sample(processes.all)
        let sent = try await offPool { [self] in Self.schedule(signals, gap: gap, on: connection) }.get()
        try await eachApp(clients) { try await $0.settle() }
        return (sent, CPUShare(from: before, to: CPUTime.sample(processes.all), of: processes, per: signals))
    }

    /// Sends `count` posts `gap` apart, each at its planned time (a late one does not delay
    /// the next). Runs on a thread of its own.
    private static func schedule(_ count: Int, gap: Duration, on connection: Connection) -> Result<
        [UInt32: UInt64], DBusError
    > {
        var sent: [UInt32: UInt64] = [:]
        let start = TraceLog.now() + 1_000_000
        for index in 0..<count {
            sleep(untilMonotonic: start + UInt64(index) * gap.nanoseconds)
            let time = TraceLog.now()
            do {
                sent[try connection.post(NotifyCenter.accountChanged)] = time
            } catch {
                return .failure(error)
            }
        }
        return .success(sent)
    }

    /// Checks the device in while every app holds its user's records; returns once every app
    /// has settled. Returns the time just before the call. The apps are asked one at a time, so
    /// that the asking adds little to the load being timed.
    private func endSession(on connection: Connection, clients: [AppClient]) async throws -> UInt64 {
        let before = TraceLog.now()
        try await connection.callHub(HubMethod.checkIn)
        for client in clients { try await client.settle() }
        return before
    }

    /// Calls every app at once, at most 64 calls in flight.
    private func eachApp(_ clients: [AppClient], _ body: @escaping @Sendable (AppClient) async throws -> Void)
        async throws
    {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, client) in clients.enumerated() {
                if index >= 64 { try await group.next() }
                group.addTask { try await body(client) }
            }
            try await group.waitForAll()
        }
    }

    private static func stop(_ apps: [LaunchedApp]) {
        for app in apps { app.process.signal(SIGTERM) }
        for app in apps where !app.process.waitForExit(timeout: .seconds(10)) { app.crash() }
    }

    /// `Pss:` of /proc/PID/smaps_rollup, in kB; 0 if it cannot be read.
    static func pssKB(of pid: Int32) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Pss:") })
        else { return 0 }
        return Int(line.split(separator: " ")[1]) ?? 0
    }
}

/// Deliveries of the bench's posts, read from the apps' traces.
struct DeliveryTiming {
    var all: [UInt64] = []
    var slowest: [UInt64] = []
    var lost = 0

    init(sent: [UInt32: UInt64], sender: String, traces: [[TraceEvent]]) {
        var slowestBySerial: [UInt32: UInt64] = [:]
        for trace in traces {
            var seen = Set<UInt32>()
            for event in trace where event.is(.postReceived) && event[.sender] == sender {
                guard let serial = event.integer(.serial, as: UInt32.self), let sentAt = sent[serial],
                    seen.insert(serial).inserted
                else { continue }
                let delivery = event.t - min(event.t, sentAt)
                all.append(delivery)
                slowestBySerial[serial] = max(slowestBySerial[serial] ?? 0, delivery)
            }
            lost += sent.count - seen.count
        }
        slowest = Array(slowestBySerial.values)
    }
}

/// Exposure windows of the measured check-ins: from each commit to each app's first cleanup
/// ended after it (and before the next commit).
struct ExposureTiming {
    var all: [UInt64] = []
    var uncleaned = 0

    /// The apps' cleanups are their traces' `cleanup-finished`.
    init(commits: [UInt64], traces: [[TraceEvent]]) {
        self.init(commits: commits, cleanups: traces.map { $0.filter { $0.is(.cleanupFinished) }.map(\.t) })
    }

    /// `cleanups`: per app (or receiver), when each of its cleanups ended.
    init(commits: [UInt64], cleanups: [[UInt64]]) {
        for cleanups in cleanups {
            for (index, commit) in commits.enumerated() {
                let next = index + 1 < commits.count ? commits[index + 1] : .max
                if let clean = cleanups.first(where: { $0 >= commit && $0 < next }) {
                    all.append(clean - commit)
                } else {
                    uncleaned += 1
                }
            }
        }
    }
}

/// Sleeps on CLOCK_MONOTONIC until `deadline` (nanoseconds, the trace clock).
func sleep(untilMonotonic deadline: UInt64) {
    var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &time, nil) == EINTR {}
}
