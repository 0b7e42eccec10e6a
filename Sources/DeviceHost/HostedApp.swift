import DeviceContract
import DeviceProcesses
import FacadeCore
import Foundation
import LeakScan
import SDKClients
import SharedDevice
import Synchronization

/// An app in a device, as the host sees it: what its SDK told it, traced as every app's is
/// (so every expectation, timing and report reads it alike), and the scan of its bytes that
/// says when the previous user's data stopped being readable. The app's code decides; this
/// only listens, and judges by the bytes, never by what the app says it did. A team's app's
/// cleanups are inferred from what its SDK said (`CleanupSupport.own`); the built-in app
/// reports its own as it runs them.
final class HostedApp: DeviceListener, Sendable {
    /// The app's options, as the runner gave them.
    let options: AppOptions
    let support: CleanupSupport
    let sandbox: Sandbox
    let trace: TraceLog?
    let state: Mutex<State>
    private let postBudget: Mutex<PostTraceBudget>
    private let statePath: String
    /// Where the byte scans run: never the main thread (the app's) or the bus's.
    let scans = DispatchQueue(label: "dev.sdlab.host.scan")
    /// Where the scans that confirm the built-in app's cleanups run.
    let confirmingScans = LowPriorityThread()
    /// Runs work after a delay: the bus connection's timer, since a dispatch timer would start
    /// two threads in every app, and an app out of descriptors could not start them at all.
    typealias Scheduler = @Sendable (Duration, @escaping @Sendable () -> Void) -> Void
    let schedule: Scheduler
    /// The built-in app, told each check's result on the main queue.
    private let builtInApp = Mutex<AppValue<BuiltInDeviceLabApp?>>(AppValue(nil))

    var name: String { options.name }
    var sdk: SDKKind { options.sdk }
    var backgroundMode: Bool { options.backgroundMode }
    var cleanup: CleanupPolicy { options.policy }

    struct State {
        /// Whom the app acts for: whom its SDK last said it serves, or whom the built-in app
        /// says it acts for (a `keep-all` app keeps its first user).
        var user: String?
        var previous: String?
        var foreground = true
        var blocked = false
        var callbacks: [SDKCallback] = []
        var lastError: String?
        var cleanupFailures: [String] = []
        var preferencesApplied = false
        /// The SDK's checks: why each began, and when each is told finished.
        var checks = CheckLedger()
        /// Scans asked for after the app's code returned, not done yet.
        var scansDue = 0
        /// A team's app's change whose data the host watches go.
        var watch = CleanupWatch()
        /// What outlives the process, as last saved.
        var saved = RecordLedger()
        /// Credentials typed into the sign-in page, for one interactive sign-in.
        var credentials: (user: String, password: String)?
        /// Who waits for the app to settle.
        var settleWaiters = SettleWaiters()
        /// The code the last check led to awaited its answer off any actor, so it may still be
        /// running its cleanup (`AwaitedReturn`): the app settles once that cleanup is clean.
        var cleanupMayStillRun = false

        /// No check in flight, every piece of app code it led to returned, the app's work
        /// done, and scanned after; a cleanup that code may still be running, clean.
        var isSettled: Bool {
            checks.isIdle && scansDue == 0 && !(cleanupMayStillRun && watch.job != nil)
        }

        /// The waiters to resume now that the app may have settled (none if it has not).
        mutating func takeSettleWaiters() -> [CheckedContinuation<Void, Never>] {
            isSettled ? settleWaiters.takeAll() : []
        }
    }

    init(
        options: AppOptions, support: CleanupSupport, sandbox: Sandbox, trace: TraceLog?,
        schedule: @escaping Scheduler
    ) {
        self.options = options
        self.schedule = schedule
        self.support = support
        self.sandbox = sandbox
        self.trace = trace
        postBudget = Mutex(
            PostTraceBudget(
                perSecond: options.tracedPostsPerSecond ?? AppOptions.defaultTracedPostsPerSecond,
                burst: AppOptions.tracedPostsBurst, now: TraceLog.now()))
        statePath = sandbox.root + "/host-state.json"
        let saved = FileManager.default.contents(atPath: statePath).flatMap {
            try? JSONDecoder().decode(RecordLedger.self, from: $0)
        }
        state = Mutex(State(user: saved?.user, saved: saved ?? RecordLedger()))
    }

    func withState<T>(_ body: (inout State) -> T) -> T { state.withLock { body(&$0) } }

    /// Changes the state, then writes the checks' ends it allows and wakes whoever waits for
    /// the app to settle if it now has.
    @discardableResult
    func settling<T>(_ body: (inout State) -> T) -> T {
        let (result, finished, waiters) = state.withLock { state in
            let result = body(&state)
            let finished = state.checks.takeFinished()
            return (result, finished.map { ($0, state.user) }, state.takeSettleWaiters())
        }
        if !finished.isEmpty { noteUntraced(postBudget.withLock { $0.takeUntraced() }) }
        for (check, user) in finished {
            if check.looked {
                trace?.record(.checkFinished, [.trigger: .string(check.trigger.rawValue), .user: .user(user)])
            } else {
                trace?.record(
                    .checkFinished,
                    [.trigger: .string(check.trigger.rawValue), .user: .user(user), .opportunity: .bool(false)])
            }
        }
        for waiter in waiters { waiter.resume() }
        return result
    }

    /// The built-in app, which hears each check's result from here; nil for a team's app.
    var builtIn: AppValue<BuiltInDeviceLabApp?> {
        get { builtInApp.withLock { $0 } }
        set { builtInApp.withLock { $0 = newValue } }
    }

    /// Tells the built-in app how a check ended, on the main queue, before the app code the
    /// check's answer leads to (which the facade queues there next).
    private func tellApp(_ result: CheckResult?) {
        let app = builtIn
        guard app.value != nil else { return }
        DispatchQueue.main.async { MainActor.assumeIsolated { app.value?.checkEnded(result) } }
    }

    // MARK: - What the facades say

    func heardPost(_ name: String, sender: String, serial: UInt32) {
        state.withLock { $0.checks.opportunity = .signal }
        let (traced, untraced) = postBudget.withLock { $0.admit(at: TraceLog.now()) }
        noteUntraced(untraced)
        guard traced else { return }
        trace?.record(.postReceived, [.name: .string(name), .sender: .string(sender), .serial: .uint(UInt64(serial))])
    }

    func heldPost(_ name: String, sender: String, serial: UInt32) {
        trace?.record(.postHeld, [.name: .string(name), .sender: .string(sender), .serial: .uint(UInt64(serial))])
    }

    /// Tells how many posts were heard past the trace budget since it was last told.
    private func noteUntraced(_ count: Int) {
        if count > 0 { trace?.record(.postsUntraced, [.count: .int(Int64(count))]) }
    }

    func checkStarted() {
        let trigger = state.withLock { $0.checks.begin(at: TraceLog.now()) }
        trace?.record(.checkStarted, [.trigger: .string(trigger.rawValue)])
    }

    func checkFinished(_ result: CheckResult) {
        let trigger = state.withLock { $0.checks.current }
        guard result.looked else {
            settling { $0.checks.answer(looked: false, codeReturned: true) }
            tellApp(result)
            return
        }
        if result.keysDeleted { trace?.record(.sdkKeysDeleted) }
        for callback in result.callbacks {
            trace?.record(.callback, [.name: .string(callback.description), .trigger: .string(trigger.rawValue)])
        }
        if let failure = result.failure {
            trace?.record(.checkFailed, [.trigger: .string(trigger.rawValue), .error: .string(failure)])
        }
        if let failure = result.keychainFailure {
            // The SDK acted on its answer all the same: the check goes on.
            trace?.record(.keychainFailed, [.error: .string(failure)])
        }
        let (change, blocks) = settling { state -> (CleanupJob?, Bool) in
            state.callbacks += result.callbacks
            state.lastError = result.failure ?? result.keychainFailure.map { _ in SDKErrors.keychainFailure }
            let blocks = result.blocked && !state.blocked
            state.blocked = state.blocked || result.blocked
            if case .some(let previous) = result.previous { state.previous = previous }
            var change: CleanupJob?
            if support == .own {
                change = self.change(result, from: state.user, because: trigger)
                state.user = result.user
            }
            if let change {
                state.watch.start(change)
            }
            state.checks.answer(looked: true, codeReturned: false)
            return (change, blocks)
        }
        if blocks { trace?.record(.blocked) }
        if let change { trace?.record(.cleanupStarted, fields: fields(of: change)) }
        tellApp(result)
        save()
    }

    func checkFailed(_ error: String) {
        let trigger = state.withLock { $0.checks.current }
        trace?.record(.checkFailed, [.trigger: .string(trigger.rawValue), .error: .string(error)])
        settling { state in
            state.lastError = error
            state.checks.answer(looked: true, codeReturned: false)
        }
        tellApp(nil)
    }

    func sdkRefused(_ error: String, message: String) {
        trace?.record(.sdkRefused, [.error: .string(error), .message: .string(message)])
        state.withLock { $0.lastError = error }
    }

    func appCodeReturned(afterCheck: Bool, mayStillRun: Bool) {
        let watching = settling { state in
            if afterCheck {
                state.checks.codeReturned()
                state.cleanupMayStillRun = mayStillRun
            }
            if state.watch.job != nil { state.scansDue += 1 }
            return state.watch.job != nil
        }
        guard watching else { return }
        scans.async {
            // Code that may still be deleting is not judged failed: the polls go on until clean.
            self.scan(afterCheck: afterCheck && !mayStillRun)
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
    private func change(_ result: CheckResult, from user: String?, because trigger: CheckTrigger) -> CleanupJob? {
        guard case .some(let previous) = UserChange.previousUser(result, served: user) else { return nil }
        return CleanupJob(previousUser: previous, currentUser: result.user, reason: .check(trigger), policy: cleanup)
    }

    // MARK: - What the built-in app says

    /// Work the app began that its check waits for, and `settled()` too.
    func workBegan() { state.withLock { $0.checks.openWork += 1 } }
    func workEnded() { settling { $0.checks.openWork -= 1 } }

    func actsFor(_ user: String?, preferencesApplied: Bool) {
        state.withLock {
            $0.user = user
            $0.preferencesApplied = preferencesApplied
        }
        save()
    }

    // MARK: - Records

    /// The next `count` records of `kind` for the app's user, numbered after those written before.
    func records(_ kind: RecordKind, count: Int) throws -> [DeviceRecord] {
        try state.withLock { state in
            if state.blocked { throw DeviceError.blocked.dbusError }
            guard let user = state.user else { throw DeviceError.noUser.dbusError }
            return state.saved.hand(count, of: kind, to: user, app: name)
        }
    }

    /// Saves whom the app serves and the records' numbers, when they changed (compared in
    /// memory: this runs at every check).
    func save() {
        let saved = state.withLock { state -> RecordLedger? in
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

    /// No check in flight, every piece of app code it led to returned, the app's work done,
    /// and scanned after.
    var isSettled: Bool { state.withLock { $0.isSettled } }

    /// Returns once the app has settled, or after `bound`.
    func untilSettled(within bound: Duration) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let number = state.withLock { state in
                state.isSettled ? nil : state.settleWaiters.add(continuation)
            }
            guard let number else { return continuation.resume() }
            schedule(bound) {
                self.state.withLock { $0.settleWaiters.remove(number) }?.resume()
            }
        }
    }
}
