import DeviceContract
import DeviceLink
import DeviceProcesses
import Foundation
import LeakScan
import SharedDevice
import Synchronization

/// A team's app in a device: what its SDK told it, traced as `sdlab-app` traces its own
/// (so every expectation, timing and report reads it alike), and the scan of its bytes that
/// says when the previous user's data stopped being readable. The app's code decides; this
/// only listens, and judges by the bytes, never by what the app says it did.
final class HostedApp: DeviceListener, Sendable {
    let name: String
    let sdk: SDKKind
    let backgroundMode: Bool
    let cleanup: CleanupPolicy
    let sandbox: Sandbox
    /// The places of the container the scenario leaves out of the scan.
    let scanSkips: [String]
    let trace: TraceLog?
    private let state: Mutex<State>
    private let statePath: String
    /// Where the byte scans run: never the main thread (the app's) or the bus's.
    private let scans = DispatchQueue(label: "dev.sdlab.host.scan")

    struct State {
        /// Whom the SDK last said the app serves.
        var user: String?
        var previous: String?
        var foreground = true
        var blocked = false
        var callbacks: [String] = []
        var lastError: String?
        var checks = 0
        var cleanupFailures: [String] = []
        /// Why the app's next check happens: the latest opportunity the host gave it.
        var opportunity = CheckTrigger.launch
        /// The triggers of the checks in flight, oldest first.
        var checking: [CheckTrigger] = []
        /// Checks whose app code (completion, delegate) has not returned yet.
        var owed = 0
        /// Scans asked for after the app's code returned, not done yet.
        var scansDue = 0
        /// The change whose data the host watches go, until a scan finds it gone.
        var watching: CleanupJob?
        var failureTold = false
        var pollDelay = HostedApp.firstPoll
        var pollScheduled = false
        var saved = Saved()
        /// Credentials typed into the sign-in page, for one interactive sign-in.
        var credentials: (user: String, password: String)?
        /// Who waits for the app to settle, by number: resumed when it does, or at their bound.
        var settleWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextSettleWaiter = 0

        /// No check in flight, every piece of app code it led to returned, and scanned after.
        var isSettled: Bool { owed == 0 && checking.isEmpty && scansDue == 0 }

        /// The waiters to resume now that the app may have settled (none if it has not).
        mutating func takeSettleWaiters() -> [CheckedContinuation<Void, Never>] {
            guard isSettled, !settleWaiters.isEmpty else { return [] }
            defer { settleWaiters = [:] }
            return Array(settleWaiters.values)
        }
    }

    /// What outlives the process: the user it acts for and the numbers of records written.
    struct Saved: Codable, Equatable {
        var user: String?
        var written: [String: Int] = [:]
    }

    static let firstPoll = Duration.milliseconds(5)
    static let longestPoll = Duration.seconds(1)

    init(options: AppOptions, sandbox: Sandbox, trace: TraceLog?) {
        name = options.name
        sdk = options.sdk
        backgroundMode = options.backgroundMode
        cleanup = options.policy
        scanSkips = options.scanSkips
        self.sandbox = sandbox
        self.trace = trace
        statePath = sandbox.root + "/host-state.json"
        let saved = FileManager.default.contents(atPath: statePath).flatMap {
            try? JSONDecoder().decode(Saved.self, from: $0)
        }
        state = Mutex(State(user: saved?.user, saved: saved ?? Saved()))
    }

    func withState<T>(_ body: (inout State) -> T) -> T { state.withLock { body(&$0) } }

    /// Changes the state, then wakes whoever waits for the app to settle if it now has.
    private func settling<T>(_ body: (inout State) -> T) -> T {
        let (result, waiters) = state.withLock { state in (body(&state), state.takeSettleWaiters()) }
        for waiter in waiters { waiter.resume() }
        return result
    }

    // MARK: - What the facades say

    func heardPost(_ name: String, sender: String, serial: UInt32) {
        state.withLock { $0.opportunity = .signal }
        trace?.record(.postReceived, [.name: .string(name), .sender: .string(sender), .serial: .uint(UInt64(serial))])
    }

    func checkStarted() {
        let trigger = state.withLock { state in
            state.checks += 1
            state.owed += 1
            state.checking.append(state.opportunity)
            return state.opportunity
        }
        trace?.record(.checkStarted, [.trigger: .string(trigger.rawValue)])
    }

    func checkFinished(_ report: CheckResult) {
        let (trigger, change) = settling { state -> (CheckTrigger, CleanupJob?) in
            let trigger = state.checking.isEmpty ? state.opportunity : state.checking.removeFirst()
            guard report.looked else {
                state.owed -= 1
                return (trigger, nil)
            }
            state.callbacks += report.callbacks.map(\.description)
            state.lastError = nil
            state.blocked = state.blocked || report.blocked
            if case .some(let previous) = report.previous { state.previous = previous }
            let change = self.change(report, from: state.user, because: trigger)
            state.user = report.user
            if let change {
                state.watching = change
                state.failureTold = false
                state.pollDelay = Self.firstPoll
            }
            return (trigger, change)
        }
        for callback in report.callbacks {
            trace?.record(.callback, [.name: .string(callback.description), .trigger: .string(trigger.rawValue)])
        }
        if report.blocked { trace?.record(.blocked) }
        trace?.record(
            .checkFinished,
            fields: [(.trigger, .string(trigger.rawValue)), (.user, .user(report.user))]
                + (report.looked ? [] : [(.opportunity, .bool(false))]))
        if let change { trace?.record(.cleanupStarted, fields: fields(of: change)) }
        save()
    }

    func checkFailed(_ error: String) {
        let trigger = settling { state in
            state.lastError = error
            return state.checking.isEmpty ? state.opportunity : state.checking.removeFirst()
        }
        trace?.record(.checkFailed, [.trigger: .string(trigger.rawValue), .error: .string(error)])
    }

    func appCodeReturned(afterCheck: Bool) {
        let watching = settling { state in
            if afterCheck { state.owed = max(0, state.owed - 1) }
            if state.watching != nil { state.scansDue += 1 }
            return state.watching != nil
        }
        guard watching else { return }
        scans.async {
            self.scan(afterCheck: afterCheck)
            self.settling { $0.scansDue -= 1 }
        }
    }

    func takeCredentials() -> (user: String, password: String)? {
        state.withLock { state in
            defer { state.credentials = nil }
            return state.credentials
        }
    }

    /// The cleanup the SDK's answer calls for, if any (the rule is `UserChange`'s).
    private func change(_ report: CheckResult, from user: String?, because trigger: CheckTrigger)
        -> CleanupJob?
    {
        guard case .some(let previous) = UserChange.previousUser(report, served: user) else { return nil }
        return CleanupJob(previousUser: previous, currentUser: report.user, reason: trigger.rawValue, policy: cleanup)
    }

    // MARK: - The bytes

    /// Reads the app's container as the device attacker does: clean when a scan that read the
    /// whole of it finds none of another user's data but what the app declares it keeps. A
    /// scan after the app's own handling of the change that still finds some, or that could
    /// not read everything (the app used up its descriptors, made a folder unreadable), is a
    /// failed cleanup: a scan that did not read it all proves nothing. The host keeps looking
    /// (after each piece of the app's code, and on a timer that backs off) until a complete
    /// scan finds it gone, as an app may finish its cleanup later.
    private func scan(afterCheck: Bool) {
        guard let job = state.withLock({ $0.watching }) else { return }
        UserDefaults.standard.synchronize()
        let found = LeakScanner(container: sandbox.root, app: name, outOfScope: scanSkips).scan()
        let ended = TraceLog.now()
        let left = LeakScanner.judge(found, currentUser: job.currentUser, cleanup: cleanup).leaks
        // What a scan that did not read everything found is not all there is: no `holds`.
        let held: [(TraceField, TraceValue)] = found.holdings.map { [(.holds, .string($0.description))] } ?? []
        if left.isEmpty, found.isComplete {
            let closes = state.withLock { state in
                guard state.watching == job else { return false }
                state.watching = nil
                return true
            }
            guard closes else { return }
            trace?.record(.cleanupFinished, at: ended, fields: fields(of: job) + held)
            return
        }
        let failure = [left.isEmpty ? nil : "left \(left.described)", found.unproven].compactMap { $0 }
            .joined(separator: "; ")
        let tell =
            afterCheck
            && state.withLock { state in
                guard state.watching == job, !state.failureTold else { return false }
                state.failureTold = true
                state.cleanupFailures.append(failure)
                return true
            }
        if tell {
            trace?.record(.cleanupFailed, at: ended, fields: fields(of: job) + held + [(.error, .string(failure))])
        }
        schedulePoll()
    }

    private func schedulePoll() {
        let delay = state.withLock { state -> Duration? in
            guard state.watching != nil, !state.pollScheduled else { return nil }
            state.pollScheduled = true
            defer { state.pollDelay = min(state.pollDelay * 2, Self.longestPoll) }
            return state.pollDelay
        }
        guard let delay else { return }
        scans.asyncAfter(deadline: .now() + .nanoseconds(Int(delay.nanoseconds))) {
            self.state.withLock { $0.pollScheduled = false }
            self.scan(afterCheck: false)
        }
    }

    /// Whom a cleanup was for, why, and that it is the app's own code.
    func fields(of job: CleanupJob) -> [(TraceField, TraceValue)] {
        [(.previous, .user(job.previousUser)), (.current, .user(job.currentUser)), (.reason, .string(job.reason))]
            + cleanupFields
    }

    /// The app's cleanup as the trace names it: `own`, and what it keeps.
    var cleanupFields: [(TraceField, TraceValue)] {
        let keeps = RecordKind.keepable.filter(cleanup.keeps.contains).map(\.rawValue)
        return [(.policy, .string(cleanup.name))]
            + (keeps.isEmpty ? [] : [(.keeps, .string(keeps.joined(separator: ",")))])
    }

    // MARK: - Records

    /// The next `count` records of `kind` for the app's user, numbered after those written before.
    func records(_ kind: RecordKind, count: Int) throws -> [DeviceRecord] {
        try state.withLock { state in
            if state.blocked { throw AppError.blocked.dbusError }
            guard let user = state.user else { throw AppError.noUser.dbusError }
            let key = "\(user)/\(kind.rawValue)"
            let first = (state.saved.written[key] ?? 0) + 1
            state.saved.written[key] = first + count - 1
            return (first..<first + count).map { number in
                let canary = Canary(user: user, app: name, kind: kind, number: number).description
                return DeviceRecord(
                    user: user, kind: kind.rawValue, canary: canary,
                    text: "\(canary) \(kind.rawValue) record of \(user)")
            }
        }
    }

    /// Saves whom the app serves and the records' numbers, when they changed (compared in
    /// memory: this runs at every check).
    func save() {
        let saved = state.withLock { state -> Saved? in
            var now = state.saved
            now.user = state.user
            guard now != state.saved else { return nil }
            state.saved = now
            return now
        }
        guard let saved, let data = try? JSONEncoder().encode(saved) else { return }
        do {
            try AtomicFile.write(data, to: statePath)
        } catch {
            trace?.record(.saveFailed, [.error: .string("\(error)")])
        }
    }

    /// No check in flight, every piece of app code it led to returned, and scanned after.
    var isSettled: Bool { state.withLock { $0.isSettled } }

    /// Returns once the app has settled, or after `bound`.
    func untilSettled(within bound: Duration) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let number = state.withLock { state -> Int? in
                guard !state.isSettled else { return nil }
                state.nextSettleWaiter += 1
                state.settleWaiters[state.nextSettleWaiter] = continuation
                return state.nextSettleWaiter
            }
            guard let number else { return continuation.resume() }
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(bound.nanoseconds))) {
                self.state.withLock { $0.settleWaiters.removeValue(forKey: number) }?.resume()
            }
        }
    }
}
