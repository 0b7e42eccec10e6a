import CFenceWatch
import DeviceContract
import DeviceProcesses
import Foundation
import Synchronization

/// The kernel's word on what the fence refused. Landlock logs each refusal to the kernel's audit,
/// and a runner that may read the audit (root, in the first user namespace) hears every record on
/// a thread of its own. Its apps' fences then leave every write to Landlock (`sdlab-fence
/// --logged`): a write goes on at once, and a refused one is named all the same, as the app's
/// `write-refused`. Where the audit cannot be read, the watch holds every write (Docs/hardening.md).
final class KernelRefusals: Sendable {
    /// This runner's reader, opened at its first use (which turns the audit on if it is off), or
    /// why the kernel's refusals cannot be heard here.
    static let shared: Result<KernelRefusals, Unheard> = open()

    struct Unheard: Error, CustomStringConvertible {
        let description: String
    }

    /// Why this runner cannot hear the kernel's refusals; nil when it can.
    static var whyUnheard: String? {
        if case .failure(let why) = shared { why.description } else { nil }
    }

    private let listener: Int32
    private let lostAtStart: UInt32
    private let state = Mutex(State())

    private struct State {
        var reading = LandlockRefusalReading()
        /// Each launched app's refusals, by the process that became its fence's domain, and when
        /// it was spawned (on the trace's clock).
        var apps: [Int32: (refusals: FenceRefusals, since: UInt64)] = [:]
        /// Refusals of domains no app has claimed yet (its launch is not registered yet, or it is
        /// another runner's), and when each was heard.
        var unclaimed: [(refusal: LandlockRefusal, heard: UInt64)] = []
        /// Marks this runner logged and waits for, each with who waits.
        var marks: [String: DispatchSemaphore] = [:]
        /// Why something was not heard (records lost on the way to this runner).
        var deafness: String?
    }

    private init(listener: Int32, lostAtStart: UInt32) {
        self.listener = listener
        self.lostAtStart = lostAtStart
    }

    private static func open() -> Result<KernelRefusals, Unheard> {
        var why = [CChar](repeating: 0, count: 300)
        let listener = sdlab_audit_open(&why, Int32(why.count))
        guard listener >= 0 else {
            return .failure(Unheard(description: Self.text(why)))
        }
        var enabled: UInt32 = 0
        var lost: UInt32 = 0
        guard sdlab_audit_status(&enabled, &lost) == 0 else {
            close(listener)
            return .failure(Unheard(description: "the kernel's audit does not say how many records it dropped"))
        }
        let reader = KernelRefusals(listener: listener, lostAtStart: lost)
        let thread = Thread { reader.read() }
        thread.name = "kernel refusals"
        thread.stackSize = 1 << 20
        thread.start()
        return .success(reader)
    }

    /// Tells `refusals` of every refusal of the domain that `pid` (spawned at `since`) made, those
    /// heard already included.
    func register(_ pid: Int32, since: UInt64, refusals: FenceRefusals) {
        let claimed = state.withLock { state -> [LandlockRefusal] in
            state.apps[pid] = (refusals, since)
            let mine = state.unclaimed.filter { $0.refusal.owner == pid && $0.heard >= since }
            state.unclaimed.removeAll { $0.refusal.owner == pid && $0.heard >= since }
            return mine.map(\.refusal)
        }
        claimed.forEach { Self.tell($0, to: refusals) }
    }

    /// Waits until every refusal the kernel logged before now has been heard: nil, or why that
    /// cannot be known (the audit was turned off, or dropped records).
    func settle(timeout: Duration = .seconds(5)) -> String? {
        let mark = "sdlab settle \(getpid()) \(UUID().uuidString)"
        let arrived = DispatchSemaphore(value: 0)
        state.withLock { $0.marks[mark] = arrived }
        defer { _ = state.withLock { $0.marks.removeValue(forKey: mark) } }
        guard sdlab_audit_mark(mark) == 0 else {
            return "the kernel's audit did not take this runner's mark: \(errorText())"
        }
        guard arrived.wait(timeout: .now() + .nanoseconds(Int(timeout.nanoseconds))) == .success else {
            return "the kernel's audit did not deliver this runner's mark within \(timeout)"
        }
        return state.withLock { $0.deafness } ?? dropped()
    }

    /// Why records may be missing: the audit is off now, or the kernel dropped some since this
    /// runner began to read.
    private func dropped() -> String? {
        var enabled: UInt32 = 0
        var lost: UInt32 = 0
        guard sdlab_audit_status(&enabled, &lost) == 0 else {
            return "the kernel's audit does not say whether it dropped records: \(errorText())"
        }
        if enabled == 0 { return "the kernel's audit was turned off during the run" }
        if lost != lostAtStart {
            return "the kernel's audit dropped \(lost &- lostAtStart) records during the run"
        }
        return nil
    }

    private func read() {
        var text = [CChar](repeating: 0, count: 9000)
        while true {
            let type = sdlab_audit_receive(listener, &text, Int32(text.count))
            if type < 0 {
                if errno == EINTR { continue }
                let why = "records reached this runner faster than it read them (\(errorText()))"
                state.withLock { $0.deafness = $0.deafness ?? why }
                continue
            }
            guard let record = AuditRecord(type: type, text: Self.text(text)) else { continue }
            heard(record)
        }
    }

    private func heard(_ record: AuditRecord) {
        let now = TraceLog.now()
        let (told, waiting) = state.withLock { state -> ([(LandlockRefusal, FenceRefusals)], DispatchSemaphore?) in
            var complete = state.reading.read(record)
            let waiting = record.message.flatMap { state.marks[$0] }
            if waiting != nil { complete += state.reading.flush() }
            var told: [(LandlockRefusal, FenceRefusals)] = []
            for refusal in complete {
                if let owner = refusal.owner, let app = state.apps[owner] {
                    told.append((refusal, app.refusals))
                } else {
                    state.unclaimed.append((refusal, now))
                }
            }
            // Another runner's refusals, or ones whose app never registered: kept a minute.
            state.unclaimed.removeAll { now - $0.heard > 60_000_000_000 }
            if state.unclaimed.count > 4096 { state.unclaimed.removeFirst(state.unclaimed.count - 4096) }
            return (told, waiting)
        }
        told.forEach { Self.tell($0.0, to: $0.1) }
        waiting?.signal()  // after the refusals before the mark are traced
    }

    private static func text(_ characters: [CChar]) -> String {
        String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Traces `refusal` as the app's: a write by the place it would change and Landlock's access
    /// there; a device node, or anything but a file, as a call refused for why.
    private static func tell(_ refusal: LandlockRefusal, to refusals: FenceRefusals) {
        let call = refusal.syscall.map { number in
            sdlab_call_family(number).map { String(cString: $0) } ?? "syscall \(number)"
        }
        let blocker = refusal.blockers.first ?? "?"
        let path = refusal.path ?? "?"
        let access = blocker.hasPrefix("fs.") ? String(blocker.dropFirst(3)) : nil
        let pid = refusal.pid ?? refusal.owner ?? refusals.launched
        let command = refusal.command ?? ""
        switch access {
        case "make_char", "make_block":
            refusals.record(
                place: nil, why: "a device node (\(path)), which reaches past every file", call: call ?? "mknod",
                pid: pid, command: command)
        case let access?:
            refusals.record(place: path, access: access, why: nil, call: call ?? "a write", pid: pid, command: command)
        case nil:
            refusals.record(
                place: nil, why: "Landlock refused it (\(blocker))", call: call ?? "a call", pid: pid, command: command)
        }
    }
}
