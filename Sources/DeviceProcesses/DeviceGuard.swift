import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// What `sdlab guard` does: once the process that started a device (its owner: `sdlab run`,
/// `fuzz`, `bench` or `device up` in the foreground) is gone, even by SIGKILL, nothing of the
/// device may be left alive: bus, hub, apps, cleanup hooks and whatever they started.
///
/// The owner alone cannot do it (SIGKILL gives it no last word) and `PR_SET_PDEATHSIG` reaches
/// children only, not a hook's grandchildren. So the guard, a child of the owner, reads a pipe
/// whose only write end is the owner's: end of file means the owner is gone, and a byte before
/// it means the owner stopped the device itself. While it waits, every 100 ms or so, it notes
/// the owner's descendants as they are (`ProcessTable`, by PID and start time, so a PID reused
/// later is never touched). The owner of a run is a child subreaper, so a hook's child that
/// left its session (`setsid`) and even cleared its environment stays below it and is noted.
/// When the owner dies its orphans are handed elsewhere and nothing links them to the run any
/// more, except those notes, the run folder their command line names, and the container a
/// hook's environment names (`LiveProcesses.ofRunFolder`). The guard stops (SIGSTOP) all of
/// those and their descendants until a fresh look finds no more, so that none can start
/// another, then kills them (SIGKILL). Only a process that cleared its environment and was
/// orphaned within the last interval before the owner died can escape.
public struct DeviceGuard: Sendable {
    public let owner: Int32
    public let folder: String

    public init(owner: Int32, folder: String) {
        self.owner = owner
        self.folder = folder
    }

    /// The shortest time between two looks at the owner's descendants.
    static let shortestInterval = 100

    /// Watches `pipe` until it ends, then, unless the owner said it stopped the device itself,
    /// ends every process of the device.
    public func watch(_ pipe: Int32) {
        let table = ProcessTable.read()
        // Started after its owner died: what it left below itself is out of reach.
        let ownerIdentity = getppid() == owner ? table.identity(of: owner) : nil
        let spared = Set([getpid(), 1] + table.ancestors(of: owner))
        var noted: Set<ProcessIdentity> = []
        var interval = Self.shortestInterval
        var stoppedOnPurpose = false
        while true {
            switch Self.next(on: pipe, within: interval) {
            case .quiet:
                guard let ownerIdentity else { continue }
                let started = ContinuousClock.now
                let before = noted
                noted = Self.note(descendantsOf: ownerIdentity, adding: noted)
                if noted != before { record(noted) }
                interval = Self.interval(after: ContinuousClock.now - started)
            case .byte: stoppedOnPurpose = true
            case .end:
                if !stoppedOnPurpose { endEveryProcess(noted: noted, sparing: spared) }
                return
            }
        }
    }

    /// Writes what it has noted to the run folder (`guard-noted`: `PID START` a line), each time
    /// that changes, so that whoever must know a process is within reach can see it is. A write
    /// that fails changes nothing of the guard's work.
    private func record(_ noted: Set<ProcessIdentity>) {
        let lines = noted.sorted { $0.pid < $1.pid }.map { "\($0.pid) \($0.startTime)\n" }.joined()
        try? AtomicFile.write(Data(lines.utf8), to: RunFolder.guardNotes(in: folder))
    }

    /// The processes a guard has noted, as it last wrote them in `folder` (none before its first look).
    public static func noted(in folder: String) -> Set<ProcessIdentity> {
        guard let data = FileManager.default.contents(atPath: RunFolder.guardNotes(in: folder)) else { return [] }
        return Set(
            String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
                let fields = line.split(separator: " ")
                guard fields.count == 2, let pid = Int32(fields[0]), let start = UInt64(fields[1]) else { return nil }
                return ProcessIdentity(pid: pid, startTime: start)
            })
    }

    private enum PipeNews { case quiet, byte, end }

    /// What the owner's pipe says within `milliseconds`: nothing, a byte, or its end.
    private static func next(on pipe: Int32, within milliseconds: Int) -> PipeNews {
        var entry = pollfd(fd: pipe, events: Int16(POLLIN), revents: 0)
        let ready = poll(&entry, 1, Int32(milliseconds))
        if ready == 0 || (ready < 0 && errno == EINTR) { return .quiet }
        var byte: UInt8 = 0
        let count = read(pipe, &byte, 1)
        if count < 0, errno == EINTR { return .quiet }
        return count > 0 ? .byte : .end
    }

    /// The owner's descendants now, with those noted before that still live: a process the
    /// owner's death has already handed elsewhere is no longer below it, but still the run's.
    private static func note(descendantsOf owner: ProcessIdentity, adding noted: Set<ProcessIdentity>)
        -> Set<ProcessIdentity>
    {
        let table = ProcessTable.read()
        let stillAlive = noted.filter { table.identity(of: $0.pid) == $0 }
        guard table.identity(of: owner.pid) == owner else { return stillAlive }
        return stillAlive.union(table.descendants(of: [owner.pid]))
    }

    /// A look at /proc costs in proportion to the processes there: with a fleet of thousands,
    /// looks come less often, so the guard keeps under 5% of a core.
    private static func interval(after look: Duration) -> Int {
        max(shortestInterval, Int(look / .milliseconds(1) * 20))
    }

    /// Stops every process of the device, again while stopping them turns up more (a child
    /// forked a moment before its parent stopped), then kills them all; again while a fresh
    /// look finds one that escaped (bounded).
    private func endEveryProcess(noted: Set<ProcessIdentity>, sparing spared: Set<Int32>) {
        var ended: Set<ProcessIdentity> = []
        for _ in 0..<10 {
            let stopped = stopEveryProcess(noted: noted, sparing: spared, besides: ended)
            if stopped.isEmpty { return }
            for process in stopped where ProcessTable.identity(of: process.pid) == process {
                kill(process.pid, SIGKILL)
            }
            ended.formUnion(stopped)
        }
    }

    /// SIGSTOP, so that a process can neither start another nor leave, to every process of
    /// the device not yet ended, until a look finds none new (bounded); returns them.
    private func stopEveryProcess(
        noted: Set<ProcessIdentity>, sparing spared: Set<Int32>, besides ended: Set<ProcessIdentity>
    ) -> Set<ProcessIdentity> {
        var stopped: Set<ProcessIdentity> = []
        for _ in 0..<100 {
            let found = processesOfTheDevice(noted: noted, sparing: spared).subtracting(ended).subtracting(stopped)
            if found.isEmpty { break }
            for process in found { kill(process.pid, SIGSTOP) }
            stopped.formUnion(found)
        }
        return stopped
    }

    /// The live processes noted below the owner, those of the run folder, and every
    /// descendant of either; never this guard, another guard, nor the owner's ancestors.
    private func processesOfTheDevice(noted: Set<ProcessIdentity>, sparing spared: Set<Int32>) -> Set<ProcessIdentity> {
        let table = ProcessTable.read()
        let mayEnd = { (process: ProcessIdentity) in !spared.contains(process.pid) && !Self.isGuard(process.pid) }
        let roots = noted.filter { table.identity(of: $0.pid) == $0 }
            .union(LiveProcesses.ofRunFolder(folder).compactMap(table.identity(of:)))
            .filter(mayEnd)
        return roots.union(table.descendants(of: Set(roots.map(\.pid)))).filter(mayEnd)
    }

    /// Another device's guard (each device of `run --jobs N` has one): it does the same for
    /// its own folder, so it is left to finish.
    private static func isGuard(_ pid: Int32) -> Bool {
        guard let bytes = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
        let arguments = bytes.split(separator: 0)
        return arguments.count > 1 && arguments[1].elementsEqual("guard".utf8)
            && executable(of: pid) == executable(of: getpid())
    }

    private static func executable(of pid: Int32) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
    }
}
