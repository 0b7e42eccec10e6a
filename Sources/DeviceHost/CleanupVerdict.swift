import DeviceContract
import LeakScan
import SharedDevice

/// A cleanup judged by the container's bytes, read as the device attacker reads them: clean when
/// the app said nothing went wrong and a scan that read the whole container found none of
/// another user's data but what the cleanup declares it keeps. A scan that could not read
/// everything (the app used up its descriptors, made a folder unreadable) proves nothing, so it
/// is never clean. Every app is judged by it: the built-in app once, as its cleanup returns; a
/// team's app at each look until it is clean.
struct CleanupVerdict {
    let found: LeakScanner.Scan
    /// Another user's data the cleanup does not declare it keeps.
    let left: [LeakScanner.Finding]
    /// When the scan ended (CLOCK_MONOTONIC ns).
    let ended: UInt64
    /// What the app said went wrong.
    let error: String?

    /// Scans with `scanner` and judges what it found against `job`.
    init(_ job: CleanupJob, scanning scanner: LeakScanner, error: String? = nil) {
        found = scanner.scan()
        ended = TraceLog.now()
        left = LeakScanner.judge(found, currentUser: job.currentUser, cleanup: job.policy).leaks
        self.error = error
    }

    var isClean: Bool { error == nil && left.isEmpty && found.isComplete }

    /// Why it is not clean: what the app said went wrong, what was left, what the scan could
    /// not read.
    var failure: String {
        [error, left.isEmpty ? nil : "left \(left.described)", found.unproven].compactMap { $0 }.joined(separator: "; ")
    }

    /// What the app keeps, as the trace's `holds`: none when the scan did not read everything.
    var holdings: [(TraceField, TraceValue)] { found.holdings.map { [(.holds, .string($0.description))] } ?? [] }
}
