import DeviceProcesses
import Foundation

/// Every fleet size of a bench, each `repeats` times right after its own two C floors (the
/// recheck one with the fleet's session changes: the cleanup floor), each in a folder of its
/// own: what `sdlab bench` runs (the command parses and prints).
public struct BenchSweep: Sendable {
    public var sizes: [Int]
    public var repeats: Int
    public var signals: Int
    public var gap: Duration
    public var changes: Int
    public var records: Int
    /// A team's app to run the fleets of instead of sdlab-app.
    public var executable: String?
    /// Keep each fleet's and floor's folder.
    public var keep: Bool
    /// Where the run folders go.
    public var runFolders: String
    /// What runs now, for a line rewritten in place.
    public var progress: @Sendable (String) -> Void = { _ in }
    /// A line to keep: where a folder was kept.
    public var note: @Sendable (String) -> Void = { _ in }
    /// A fleet measured with its floors, and its round (1-based).
    public var sampleTaken: @Sendable (BenchSample, Int) -> Void = { _, _ in }

    public init(
        sizes: [Int], repeats: Int, signals: Int, gap: Duration, changes: Int, records: Int, executable: String?,
        keep: Bool, runFolders: String
    ) {
        self.sizes = sizes
        self.repeats = repeats
        self.signals = signals
        self.gap = gap
        self.changes = changes
        self.records = records
        self.executable = executable
        self.keep = keep
        self.runFolders = runFolders
    }

    /// How a sweep ended: every fleet measured, or a termination signal (the task cancelled)
    /// stopped it after `after` fleets (each fleet size's run with its floors).
    public enum End: Sendable {
        case done(BenchResults)
        case interrupted(after: Int)
    }

    /// Runs the sweep against `floor`. A failure a termination signal caused ends it as
    /// interrupted; any other is thrown, with what went wrong.
    public func run(against floor: any Floor) async throws -> End {
        var runs: [BenchRun] = []
        var done = 0
        for size in sizes {
            var samples: [BenchSample] = []
            for round in 1...repeats {
                let label = "N=\(size)" + (repeats > 1 ? " (\(round) of \(repeats))" : "")
                guard let sample = try await measure(size, label: label, floor: floor) else {
                    return .interrupted(after: done)
                }
                done += 1
                samples.append(sample)
                sampleTaken(sample, round)
            }
            runs.append(try BenchRun(samples: samples))
        }
        return .done(BenchResults(runs: runs))
    }

    /// Both floors, then the fleet, of one size; nil when a termination signal came meanwhile
    /// (what it measured then is not kept, whether or not the signal broke it).
    private func measure(_ size: Int, label: String, floor: any Floor) async throws -> BenchSample? {
        var floors = BenchSample.Floors(recheck: nil, plain: nil)
        for recheck in [false, true] {
            guard !Task.isCancelled, let measured = try await measureFloor(size, recheck, label, floor) else {
                return nil
            }
            if recheck { floors.recheck = measured } else { floors.plain = measured }
        }
        guard !Task.isCancelled, let measured = try await measureFleet(size, label: label) else { return nil }
        return Task.isCancelled ? nil : BenchSample(measured, gap: gap, changes: changes, floors: floors)
    }

    /// One floor in a folder of its own; nil when a termination signal stopped it.
    private func measureFloor(_ size: Int, _ recheck: Bool, _ label: String, _ floor: any Floor) async throws
        -> FloorMeasurement?
    {
        progress("\(label): C floor\(recheck ? " with recheck" : "")")
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-floor", in: runFolders)
        do {
            let measured = try await floor.fanout(
                receivers: size, signals: signals, gap: gap, recheck: recheck, changes: changes, records: records,
                in: folder)
            finish(folder, label)
            return measured
        } catch {
            let empty = (try? FileManager.default.contentsOfDirectory(atPath: folder))?.isEmpty ?? true
            if empty || (Task.isCancelled && !keep) {
                try? FileManager.default.removeItem(atPath: folder)  // an external floor's own, or interrupted
            } else {
                note("\(label): floor folder kept: \(folder)")
            }
            return try interruptedOrFailed(error)
        }
    }

    /// The fleet of `size` apps in a run folder of its own; nil when a termination signal stopped it.
    private func measureFleet(_ size: Int, label: String) async throws -> FleetMeasurement? {
        let lockedFolder = try LockedRunFolder.make(prefix: "sdlab-bench", in: runFolders)
        let runFolder = lockedFolder.path
        var bench = FleetBench(apps: size, signals: signals, gap: gap, changes: changes, records: records)
        bench.progress = { [progress] in progress("\(label): \($0)") }
        bench.executable = executable
        do {
            let measured = try await bench.run(in: runFolder)
            lockedFolder.release()  // the run ended: its folder is to keep or remove, not a killed run's
            finish(runFolder, label)
            return measured
        } catch {
            lockedFolder.release()
            if Task.isCancelled { finish(runFolder, label) } else { note("\(label): run folder kept: \(runFolder)") }
            return try interruptedOrFailed(error)
        }
    }

    /// Removes a run folder, or with `keep` says where it is.
    private func finish(_ folder: String, _ label: String) {
        if keep {
            note("\(label): run folder kept: \(folder)")
        } else {
            try? TreeRemoval.remove(folder)
        }
    }

    /// Nil for a failure a termination signal caused (the task is cancelled then); any other
    /// is thrown.
    private func interruptedOrFailed<T>(_ error: any Error) throws -> T? {
        guard !Task.isCancelled else { return nil }
        throw error
    }
}
