import SharedDevice

/// The trace's vocabulary: every event the hub and the apps write, with its fields (beside
/// `t`, `proc` and `event`). The runner, bench and reports read them by these names.
public enum TraceName: String, Sendable, CaseIterable {
    /// The hub serves the bus (`generation`); an app shows its UI, its launch check done.
    case ready

    // The hub.
    /// A session change committed (saved before it is answered): `state`, `user`, `generation`.
    case sessionChanged = "session-changed"
    /// With Authenticator as MSAL's broker, its account changed apart from the session,
    /// committed and saved: `user` (the account's), `generation`.
    case accountChanged = "account-changed"
    /// The broker posted a notification: `name`, `state` (the notify state it set first).
    case posted
    /// The hub killed itself at the point of a change a scenario armed (`name`: the point).
    case hubCrashed = "hub-crashed"

    // An app's life.
    /// The process started: `sdk`, `pid`, `background_mode`, and its cleanup (`policy`, `hook`, `keeps`).
    case launched
    /// It exits on SIGTERM, its work in hand done.
    case terminated
    case foreground, background, resumed
    /// The app began a background task: `name` (as the app named it, or empty), `count` (how
    /// many it has open now).
    case backgroundTaskBegan = "background-task-began"
    /// The app ended one: `count` (how many it has open now).
    case backgroundTaskEnded = "background-task-ended"
    /// Its background time ran out with tasks open: their expiration handlers run (`count`
    /// of them); it is suspended next, or ended if a task outlives them.
    case backgroundTasksExpired = "background-tasks-expired"
    /// The SDK's UI block began (Workspace ONE, until the next launch).
    case blocked

    // What an app heard and did.
    /// A post reached the app: `name`, `sender`, `serial` (which post it was).
    case postReceived = "post-received"
    /// A broadcast reached a cached Android app, which Android holds until it leaves the cached
    /// state (one per action then, traced `post-received`): `name`, `sender`, `serial`.
    case postHeld = "post-held"
    /// A check began: `trigger` (`launch`, `foreground`, `signal`, `resume`, `sign-in`, `sign-out`).
    case checkStarted = "check-started"
    /// A check ended: `trigger`, `user` (whom the app acts for now); `opportunity: false` when
    /// the SDK did not look (a Workspace ONE app's foreground while blocked or not initialised).
    case checkFinished = "check-finished"
    /// The SDK could not answer: `trigger`, `error`.
    case checkFailed = "check-failed"
    /// An SDK refused to start, before any check: `error` (MSAL's init, whose redirect URI the
    /// app's Info.plist does not allow: `redirectSchemeNotRegistered`, `invalidRedirectURI`) and
    /// `message` (the SDK's words).
    case sdkRefused = "sdk-refused"
    /// An SDK callback: `name` (`current-account(A,B)`, `wipe`, …), `trigger`.
    case callback
    /// The SDK acted on the hub's answer but could not write its state to the keychain (it
    /// writes again at the next check): `error`.
    case keychainFailed = "keychain-failed"
    /// Posts heard past the app's trace budget (`--traced-posts-per-second`): not traced one by
    /// one but counted here, before the next traced one or at the end of a check: `count`.
    case postsUntraced = "posts-untraced"
    /// The Workspace ONE SDK deleted its data-encryption key (before `wipe`).
    case sdkKeysDeleted = "sdk-keys-deleted"
    /// A cleanup began; a job left unfinished is run again at launch (`cleanup-resumed`) and at
    /// each check (`cleanup-retried`) first: `previous`, `current`, `reason`, `policy` (`hook`
    /// with its command, `keeps`).
    case cleanupStarted = "cleanup-started", cleanupResumed = "cleanup-resumed", cleanupRetried = "cleanup-retried"
    /// A cleanup ran without error and the app's scan, which read the whole container, found
    /// nothing of another user it does not keep; stamped when the cleanup ended. The start's
    /// fields and `holds` (what is still readable: `cou1/common,…`).
    case cleanupFinished = "cleanup-finished"
    /// A cleanup failed, left data behind, or its scan could not read everything (it then proves
    /// nothing): the start's fields, `error` saying which, and `holds` after a scan that read
    /// everything (what a partial scan found is not all there is).
    case cleanupFailed = "cleanup-failed"
    /// A returning user's kept preferences were applied: `user`.
    case preferencesApplied = "preferences-applied"
    /// The user's key of `external` records came from the key service: `user`.
    case externalKeyFetched = "external-key-fetched"
    /// Records written: `kind`, `count`, `user`.
    case wrote
    /// The app's own sign-in or sign-out: `user`.
    case signedIn = "signed-in", signedOut = "signed-out"
    /// The app could not save whom it acts for: `error`.
    case saveFailed = "save-failed"
    /// An app, or a process it started, tried to write outside its container (`path`) or made a
    /// call no app may make (`reason`), and was refused: `call`; from the fence's watch also `pid`
    /// and `command`.
    case writeRefused = "write-refused"

    // Any process.
    /// A file the run is judged by could not be written (the trace itself, the hub's state):
    /// `path`, `error` (the system's words and the error's name). The run cannot be judged.
    case writeFailed = "write-failed"
}

/// The fields of trace events.
public enum TraceField: String, Sendable, CaseIterable {
    case generation, state, user, name, sender, serial, trigger, opportunity, error
    case sdk, pid, backgroundMode = "background_mode"
    case previous, current, reason, policy, hook, keeps, holds
    case kind, count
    case path, call
    /// The command name of the process that made a call (`/proc/PID/comm`).
    case command
    /// The access the kernel's Landlock refused at `path` (its own name, `make_reg`, `write_file`…).
    case access
    /// What holds the app's writes (`WriteFenceState`).
    case fence
    /// An SDK's own words for what it refused.
    case message
    /// Who is MSAL's broker (`BrokerSetup`).
    case broker
}
