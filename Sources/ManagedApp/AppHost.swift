import Crypto
import DBusKit
import DeviceContract
import DeviceProcesses
import FoundationEssentials
import Glibc
import LeakScan
import SharedDevice
import SharedDeviceSDK
import Synchronization

/// How the app cleans up for a job: by default its policy; an app of a team's own does it its way.
public typealias CleanupWork = @Sendable (CleanupJob, Container) throws -> Void

/// A running managed app: its SDK on the bus, its container, its cleanup, and the work loop
/// that serialises checks, cleanups and the runner's requests. Every decision is the
/// domain's (`AppModel`, the SDK models); this carries them out and writes the trace.
public final class AppHost: Sendable {
    public let configuration: AppConfiguration
    let connection: Connection
    let container: Container
    let sdk: any EmbeddedSDK
    let inbox = Inbox()
    private let cleaner: Cleaner
    private let cleanupWork: CleanupWork?
    private let trace: TraceLog?
    private let state: Mutex<State>
    private let statePath: String
    private let postBudget: Mutex<PostTraceBudget>

    /// What the app shows and believes right now.
    struct State {
        var model: AppModel
        var foreground = true
        var blocked = false
        /// Every SDK callback of this process, in order.
        var callbacks: [String] = []
        /// The previous account of the latest MSAL result.
        var previous: String?
        var lastError: String?
        /// The current user's key of `external` records: in memory only.
        var externalKey: (user: String, key: SymmetricKey)?
        var checks = 0
        /// When the latest check began (CLOCK_MONOTONIC ns).
        var lastCheckBegan: UInt64 = 0
        var cleanupFailures: [String] = []
        /// The unfinished cleanups as last written to the journal.
        var journaled: [CleanupJob] = []
        /// The user as last saved to `app-state.json`.
        var savedUser: String?
        /// Users whose container was looked through for `external` records since launch.
        var externalRecordsLookedUp: Set<String> = []
    }

    /// Opens the container and the trace and finishes a cleanup a previous run left unfinished,
    /// before anything else. Call `start` next.
    /// An app with `cleanupWork` (cleanup code of its own) must be configured with the `own`
    /// policy, and only such an app may be: what runs is what the scenario declared.
    public init(_ configuration: AppConfiguration, connection: Connection, cleanupWork: CleanupWork? = nil) throws {
        switch (configuration.policy, cleanupWork) {
        case (.own, nil): throw LaunchError("--cleanup own: this app has no cleanup code of its own")
        case (.own, _?), (_, nil): break
        case (let declared, _?):
            throw LaunchError(
                "it cleans up with code of its own, not \(declared.description): declare `cleanup: own`"
                    + " (or `cleanup: {keeps: [...]}`) for it, or run it with --cleanup own")
        }
        self.configuration = configuration
        self.connection = connection
        self.cleanupWork = cleanupWork
        container = try Container(root: configuration.container, app: configuration.name)
        do {
            trace = try configuration.trace.map { try TraceLog(path: $0, process: configuration.name) }
        } catch {
            throw LaunchError("\(error)")
        }
        statePath = configuration.container + "/app-state.json"
        postBudget = Mutex(
            PostTraceBudget(
                perSecond: configuration.tracedPostsPerSecond, burst: AppOptions.tracedPostsBurst, now: TraceLog.now()))
        let saved = FileManager.default.contents(atPath: statePath).flatMap {
            try? JSONDecoder().decode(String?.self, from: $0)
        }
        state = Mutex(State(model: AppModel(policy: configuration.policy, user: saved ?? nil), savedUser: saved ?? nil))
        sdk = embeddedSDK(
            configuration.sdk, connection: connection, clientID: configuration.name, keychain: container.keychain,
            hub: configuration.hub, timeout: configuration.hubTimeout)
        cleaner = Cleaner(
            container: container, dataKeyName: sdk.dataKeyName, hookTimeout: configuration.hookTimeout,
            hookDirectory: configuration.hookDirectory)
    }

    /// Finishes an interrupted cleanup, listens for posts (MSAL) and resumes, serves `App1`,
    /// takes the app's bus name and makes the launch check. Returns once the app shows its UI.
    public func start() async throws {
        trace?.record(
            .launched,
            fields: [
                (.sdk, .string(configuration.sdk.rawValue)), (.pid, .int(Int64(getpid()))),
                (.backgroundMode, .bool(configuration.backgroundMode)), (.fence, .string(WriteFenceState.told())),
            ]
                + Self.fields(of: configuration.policy))
        let journaled = cleaner.unfinished()
        if !journaled.isEmpty {
            HookRecord.stopLeftover(in: container.root)  // the hook of the run that died, if it outlived it
            state.withLock {
                $0.model.resume(journaled)
                $0.journaled = journaled
            }
            await rerun(journaled, noting: .cleanupResumed)
            saveModel()
        }
        // On the connection's thread: a post, the broker's answer and the check they lead to
        // follow each other without a hop between threads.
        Task(executorPreference: connection) { [self] in await workLoop() }
        // Each post is noted in the trace as it arrives (on the connection's thread, in order).
        try await sdk.observePosts { [self] post in
            let (traced, untraced) = postBudget.withLock { $0.admit(at: TraceLog.now()) }
            noteUntraced(untraced)
            if traced {
                trace?.record(
                    .postReceived,
                    [
                        .name: .string(NotifyCenter.accountChanged), .sender: .string(post.sender),
                        .serial: .uint(UInt64(post.serial)),
                    ])
            }
            inbox.requestCheck(.signal)
        }
        try connection.export(AppControl(self).interfaces, at: AppBus.path)
        guard try await connection.requestName(configuration.busName) == .primaryOwner else {
            throw LaunchError("another process already owns \(configuration.busName)")
        }
        await inbox.check(.launch)
        trace?.record(.ready)
    }

    /// Waits until the work in hand is done (a termination lets a cleanup finish).
    public func finishWork() async {
        await inbox.settled()
        trace?.record(.terminated)
        trace?.close()
    }

    // MARK: - The work loop

    private func workLoop() async {
        while true {
            switch await inbox.next() {
            case .check:
                await checkAccount()
            case .job(let body):
                await body()
            }
        }
    }

    /// One check, serving every request made before the SDK's answer arrived. This runs on
    /// the connection's thread and resumes right after each answer, before anything later is
    /// routed; the bus keeps order, so every post queued for this app before the answer has
    /// arrived by then: those posts join this check rather than cause one each.
    private func checkAccount() async {
        var waiters: [CheckedContinuation<Void, Never>] = []
        await check(because: inbox.pendingTriggers().first ?? .resume) { waiters = inbox.takeTriggers().waiters }
        for waiter in waiters { waiter.resume() }
    }

    /// Asks the SDK, calls `answered` as soon as it answers, then carries out what the answer means.
    /// Cleanups left unfinished before the check are run again at its end, whatever the SDK said.
    private func check(because trigger: CheckTrigger, answered: () -> Void) async {
        let unfinished = state.withLock {
            $0.checks += 1
            $0.lastCheckBegan = TraceLog.now()
            return $0.model.unfinishedCleanups
        }
        trace?.record(.checkStarted, [.trigger: .string(trigger.rawValue)])
        var looked = true
        do {
            let result = try await sdk.check(trigger, answered: answered)
            looked = result.looked  // if the SDK did not look, the app learned nothing
            if looked { await carryOut(result, trigger: trigger) }
        } catch {
            noteFailure(error.label, trigger: trigger)
        }
        await rerun(unfinished, noting: .cleanupRetried)
        if looked { await fetchExternalKeyIfNeeded() }
        noteUntraced(postBudget.withLock { $0.takeUntraced() })
        trace?.record(
            .checkFinished,
            fields: [(.trigger, .string(trigger.rawValue)), (.user, .user(user))]
                + (looked ? [] : [(.opportunity, .bool(false))]))
    }

    /// Tells how many posts were heard past the trace budget since it was last told.
    private func noteUntraced(_ count: Int) {
        if count > 0 { trace?.record(.postsUntraced, [.count: .int(Int64(count))]) }
    }

    private func carryOut(_ answer: CheckResult, trigger: CheckTrigger) async {
        if answer.keysDeleted { trace?.record(.sdkKeysDeleted) }
        noteCallbacks(answer.callbacks, trigger: trigger)
        if let failure = answer.failure { noteFailure(failure, trigger: trigger) }
        if let failure = answer.keychainFailure {
            // The SDK acted on its answer all the same: the check goes on.
            state.withLock { $0.lastError = SDKErrors.keychainFailure }
            trace?.record(.keychainFailed, [.error: .string(failure)])
        }
        if answer.blocked, !state.withLock({ $0.blocked }) { trace?.record(.blocked) }
        let reactions = state.withLock { state in
            if let previous = answer.previous { state.previous = previous }
            state.blocked = answer.blocked
            return state.model.heard(answer, hasPreferences: hasPreferences)
        }
        await react(reactions)
    }

    private func noteCallbacks(_ callbacks: [SDKCallback], trigger: CheckTrigger) {
        state.withLock {
            $0.callbacks += callbacks.map(\.description)
            $0.lastError = nil
        }
        for callback in callbacks {
            trace?.record(.callback, [.name: .string(callback.description), .trigger: .string(trigger.rawValue)])
        }
    }

    private func noteFailure(_ error: String, trigger: CheckTrigger) {
        state.withLock { $0.lastError = error }
        trace?.record(.checkFailed, [.trigger: .string(trigger.rawValue), .error: .string(error)])
    }

    private var user: String? { state.withLock { $0.model.user } }

    private var hasPreferences: @Sendable (String) -> Bool {
        { [container] user in container.hasPreferences(of: user) }
    }

    // MARK: - Reacting to a change

    /// Carries out what the app decided: forget the old user's key, clean up, re-apply
    /// preferences, then save who the app acts as (last, so a crash before it repeats the cleanup).
    func react(_ reactions: [AppModel.Reaction]) async {
        for reaction in reactions where reaction != .nothing {
            if let job = reaction.cleanup {
                if job.policy.plan.discardsExternalKey {
                    state.withLock {
                        $0.externalKey = nil
                        $0.externalRecordsLookedUp = []
                    }
                }
                await carryOut(job)
            }
            if reaction.reappliesPreferences, let user {
                trace?.record(.preferencesApplied, [.user: .string(user)])
            }
        }
        saveModel()
    }

    /// Runs unfinished cleanups again, oldest first, until one ends clean (which settles them all).
    private func rerun(_ jobs: [CleanupJob], noting event: TraceName) async {
        for job in jobs where state.withLock({ $0.model.unfinishedCleanups.contains(job) }) {
            trace?.record(event, fields: fields(of: job))
            await carryOut(job)
        }
    }

    /// Journals the unfinished cleanups, runs the job, reads the container to judge it, and
    /// tells the model, which keeps a failed job for the next check.
    private func carryOut(_ job: CleanupJob) async {
        journalUnfinishedCleanups()
        trace?.record(.cleanupStarted, fields: fields(of: job))
        let (cleaner, work) = (cleaner, cleanupWork)
        let run = { @Sendable () -> String? in
            do {
                try cleaner.run(job, work: work)
                return nil
            } catch {
                return "\(error)"
            }
        }
        // A policy's own cleanup deletes a few files, at once on this thread; a hook or an
        // app's own cleanup may take long, so it runs on a thread of its own.
        let error = job.policy.plan.hook == nil && work == nil ? run() : await offPool(run)
        let ended = TraceLog.now()
        // Clean means clean: whatever the cleanup says, the container is read as the device
        // attacker reads it, and another user's data it does not declare it keeps is left over.
        // A scan that could not read everything (a hook made a folder unreadable) proves
        // nothing: the cleanup is not clean, and what it found is not all there is (no `holds`).
        let found = LeakScanner(container: container.root, app: configuration.name, outOfScope: configuration.scanSkips)
            .scan()
        let left = LeakScanner.judge(found, currentUser: job.currentUser, cleanup: job.policy).leaks
        let held: [(TraceField, TraceValue)] = found.holdings.map { [(.holds, .string($0.description))] } ?? []
        let clean = error == nil && left.isEmpty && found.isComplete
        state.withLock { $0.model.cleanupEnded(job, clean: clean) }
        journalUnfinishedCleanups()
        if clean {
            trace?.record(.cleanupFinished, at: ended, fields: fields(of: job) + held)
            return
        }
        let failure = [error, left.isEmpty ? nil : "left \(left.described)", found.unproven].compactMap { $0 }
            .joined(separator: "; ")
        state.withLock { $0.cleanupFailures.append(failure) }
        trace?.record(.cleanupFailed, at: ended, fields: fields(of: job) + held + [(.error, .string(failure))])
    }

    /// Writes the journal if the unfinished cleanups changed since it was last written. One that
    /// cannot be written (a full disk) is tried again at the next cleanup; see `Cleaner.journal`.
    private func journalUnfinishedCleanups() {
        let (jobs, journaled) = state.withLock { ($0.model.unfinishedCleanups, $0.journaled) }
        guard jobs != journaled, (try? cleaner.journal(jobs)) != nil else { return }
        state.withLock { $0.journaled = jobs }
    }

    /// Whom a cleanup was for, why, and what ran.
    private func fields(of job: CleanupJob) -> [(TraceField, TraceValue)] {
        [(.previous, .user(job.previousUser)), (.current, .user(job.currentUser)), (.reason, .string(job.reason))]
            + Self.fields(of: job.policy)
    }

    /// What cleanup runs: a policy, a hook (with its command) or the app's own code, and what it keeps.
    private static func fields(of policy: CleanupPolicy) -> [(TraceField, TraceValue)] {
        var fields: [(TraceField, TraceValue)] = [(.policy, .string(policy.name))]
        if case .hook(let command, _) = policy { fields.append((.hook, .string(command))) }
        if !policy.keeps.isEmpty {
            fields.append(
                (
                    .keeps,
                    .string(RecordKind.keepable.filter(policy.keeps.contains).map(\.rawValue).joined(separator: ","))
                ))
        }
        return fields
    }

    private func saveModel() {
        let (user, changed) = state.withLock { ($0.model.user, $0.model.user != $0.savedUser) }
        guard changed else { return }
        do {
            try AtomicFile.write(JSONEncoder().encode(user), to: statePath)
            state.withLock { $0.savedUser = user }
        } catch {
            trace?.record(.saveFailed, [.error: .string("\(error)")])
        }
    }

    // MARK: - Keys

    /// The key of `sensitive` records: the SDK's (Workspace ONE) or the app's own (MSAL), made on first use.
    func dataKey() throws -> SymmetricKey { try container.keychain.key(sdk.dataKeyName) }

    /// The keys the app holds now, without making any.
    var heldKeys: Container.Keys {
        Container.Keys(
            data: container.keychain.existingKey(sdk.dataKeyName),
            external: state.withLock { $0.externalKey?.user == $0.model.user ? $0.externalKey?.key : nil })
    }

    /// The current user's key of `external` records, from the hub's key service, kept in memory.
    func externalKey() async throws -> SymmetricKey {
        if let (user, key) = state.withLock({ $0.externalKey }), user == self.user { return key }
        let reply = try await connection.callHub(
            KeyServiceMethod.getUserKey, at: configuration.hub, timeout: configuration.hubTimeout)
        guard let served = UserKey(wire: reply.first) else { throw DBusError.failed("the key service answered no key") }
        guard served.user == user else {
            throw DBusError(name: DeviceError.accountMismatch.name, message: "the key service serves \(served.user)")
        }
        let key = SymmetricKey(data: served.key)
        state.withLock { $0.externalKey = (served.user, key) }
        trace?.record(.externalKeyFetched, [.user: .string(served.user)])
        return key
    }

    /// After a relaunch the in-memory key is gone: fetch it again when the user has `external`
    /// records. The container is looked through once per user: later records are written by
    /// this process, which fetches the key to write them.
    private func fetchExternalKeyIfNeeded() async {
        guard let user,
            state.withLock({ $0.externalKey?.user != user && $0.externalRecordsLookedUp.insert(user).inserted }),
            container.hasRecords(.external, of: user)
        else { return }
        _ = try? await externalKey()
    }

    // MARK: - What the runner asks for

    func withState<T>(_ body: (inout State) -> T) -> T { state.withLock { body(&$0) } }

    func traceEvent(_ event: TraceName, _ fields: KeyValuePairs<TraceField, TraceValue> = [:]) {
        trace?.record(event, fields)
    }

    /// The app's own sign-in or sign-out changed its user: clean up as the model says, then check.
    func changedHere(to user: String?, reason: CheckTrigger) async {
        await react([
            state.withLock { $0.model.userChanged(to: user, reason: reason.rawValue, hasPreferences: hasPreferences) }
        ])
    }
}
