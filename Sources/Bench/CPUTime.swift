import DeviceProcesses
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// CPU time (user + system) of some processes at one moment, thread by thread, in ns.
///
/// Each thread's time comes from `/proc/PID/task/TID/schedstat` (the scheduler's own count,
/// without the 10 ms rounding of `/proc/PID/stat`, which would swamp a lone process's few ms);
/// where that cannot be read, the process's `/proc/PID/stat` is used. Between two samples a
/// thread counts what it used since the first (or all of it when it started in between); a
/// thread that ended in between is missed.
struct CPUTime: Sendable {
    /// PID → thread → ns (thread -1: the whole process, from /proc/PID/stat).
    var threads: [Int32: [Int32: UInt64]] = [:]

    static func sample(_ pids: [Int32]) -> CPUTime {
        var sample = CPUTime()
        for pid in pids { sample.threads[pid] = threads(of: pid) }
        return sample
    }

    /// CPU time `pids` used from `earlier` to this sample per one of `count` events, in µs to
    /// the tenth, as the bench reports CPU.
    func microseconds(since earlier: CPUTime, of pids: [Int32], per count: Int) -> Double {
        Self.tenths(microseconds(since: earlier, of: pids) / Double(max(count, 1)))
    }

    /// Rounded to 0.1 µs.
    static func tenths(_ microseconds: Double) -> Double { (microseconds * 10).rounded() / 10 }

    /// CPU time `pids` used from `earlier` to this sample, in µs.
    func microseconds(since earlier: CPUTime, of pids: [Int32]) -> Double {
        var nanoseconds: UInt64 = 0
        for pid in pids {
            let before = earlier.threads[pid] ?? [:]
            for (thread, now) in threads[pid] ?? [:] { nanoseconds += now - min(now, before[thread] ?? 0) }
        }
        return Double(nanoseconds) / 1000
    }

    private static func threads(of pid: Int32) -> [Int32: UInt64] {
        var threads: [Int32: UInt64] = [:]
        for entry in FolderListing.entries(of: "/proc/\(pid)/task") {
            guard let thread = Int32(entry.name), let text = read("/proc/\(pid)/task/\(thread)/schedstat"),
                let running = text.split(separator: " ").first.flatMap({ UInt64($0) })
            else { continue }
            threads[thread] = running
        }
        if threads.isEmpty, let whole = statNanoseconds(of: pid) { threads[-1] = whole }
        return threads
    }

    /// utime + stime of /proc/PID/stat, in ns (10 ms steps).
    private static func statNanoseconds(of pid: Int32) -> UInt64? {
        guard let stat = read("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command: state is field 3, utime 14 and stime 15.
        guard fields.count > 12, let user = UInt64(fields[11]), let system = UInt64(fields[12]) else { return nil }
        return (user + system) * 1_000_000_000 / UInt64(sysconf(Int32(_SC_CLK_TCK)))
    }

    private static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = Glibc.read(fd, &buffer, buffer.count)
        return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
    }
}
