import SharedDevice

/// One app as the domain sees it: its SDK's persisted state, whom it acts for, and which
/// users' readable records its container holds.
public struct SimulatedApp: Sendable {
    public let name: String
    public let sdk: SDKKind
    public let backgroundMode: Bool
    public private(set) var model: AppModel
    var client: Client
    /// The UI is blocked (Workspace ONE) until the next launch.
    public internal(set) var blocked = false
    /// A post reached it while it was stopped: it checks once continued.
    var pendingPost = false
    /// The hub's generation at the app's last answered check: it has handled the latest
    /// session change when this is the hub's generation.
    public internal(set) var seenGeneration: UInt64?
    /// The `plain` and `sensitive` records it could show an attacker, by user.
    public private(set) var records: [String: Set<RecordKind>] = [:]
    /// A team's hook cleaned up: what it left is not known here.
    public private(set) var recordsUnknown = false
    /// Killed while a check on a post may have been under way: until it checks with the hub
    /// up (its launch check finishes the change), whom it acts for is not known here, so what
    /// depends on it (its user, its leaks, its writes) is not predicted.
    public internal(set) var userUnknown = false
    /// `external` records: ciphertext under the user's key from the key service, which this
    /// process holds in memory only (`ExternalKeys`), so an attacker never reads them.
    var external = ExternalRecords()

    enum Client: Sendable {
        case msal(MSALAccountRule)
        case android(AndroidMSALAccountRule)
        case ws1(WorkspaceOneSessionRule)
    }

    init(name: String, sdk: SDKKind, backgroundMode: Bool, policy: CleanupPolicy) {
        self.name = name
        self.sdk = sdk
        self.backgroundMode = backgroundMode
        model = AppModel(policy: policy)
        client =
            switch sdk {
            case .msal: .msal(MSALAccountRule())
            case .msalAndroid: .android(AndroidMSALAccountRule())
            case .ws1: .ws1(WorkspaceOneSessionRule())
            }
    }

    /// Workspace ONE finished its initial check in this process (MSAL apps have none).
    public var initialised: Bool {
        if case .ws1(let sdk) = client { return sdk.initialised }
        return true
    }

    /// A new process: what lived in memory is gone, what was persisted stays.
    mutating func spawned() {
        blocked = false
        pendingPost = false
        external.forgetKey()
    }

    /// An MSAL check the broker answered with its account (at most one).
    mutating func checked(_ broker: BrokerSession) {
        let accounts = broker.account.map { [BrokerAccount(user: $0)] } ?? []
        seenGeneration = broker.generation
        switch client {
        case .msal(var msal):
            guard let result = try? msal.getCurrentAccount(.success(accounts)) else { return }
            client = .msal(msal)
            for reaction in model.heard(CheckResult(result)) { react(reaction) }
        case .android(var android):
            guard let callbacks = try? android.getCurrentAccount(.success(accounts)) else { return }
            client = .android(android)
            for reaction in model.heard(CheckResult(callbacks)) { react(reaction) }
        case .ws1:
            break
        }
    }

    /// A Workspace ONE opportunity; `session` is nil when the hub did not answer. Returns the
    /// callbacks the SDK made.
    mutating func detected(_ opportunity: WorkspaceOneSessionRule.Opportunity, session: Session?) -> [SDKCallback] {
        guard case .ws1(var sdk) = client, sdk.takes(opportunity) else { return [] }
        let effects = sdk.detect(opportunity, hub: session)
        client = .ws1(sdk)
        blocked = sdk.blocked
        if effects.contains(.deleteDataKeys) { forget(.sensitive) }
        if let session { seenGeneration = session.generation }
        let result = CheckResult(effects, session: session)
        for reaction in model.heard(result) { react(reaction) }
        return result.callbacks
    }

    /// Whether the app's own sign-in or sign-out goes on to the broker: MSAL Android guards
    /// both on the account persisted in the app; iOS MSAL always asks the broker.
    func decide(_ request: AndroidMSALAccountRule.OwnRequest) -> AndroidMSALAccountRule.Decision {
        if case .android(let android) = client { android.decide(request) } else { .askBroker }
    }

    /// The app's own sign-in (as `user`) or sign-out (nil) succeeded.
    mutating func changedHere(to user: String?) {
        if case .android(var android) = client {
            if let user { android.signedInHere(as: BrokerAccount(user: user)) } else { android.signedOutHere() }
            client = .android(android)
        }
        react(model.userChanged(to: user, reason: .check(user == nil ? .signOut : .signIn)))
    }

    mutating func wrote(_ kind: RecordKind, as user: String) {
        if kind == .external {
            external.wrote(as: user)
        } else if kind.isUserData {
            records[user, default: []].insert(kind)
        }
    }

    private mutating func react(_ reaction: AppModel.Reaction) {
        guard let job = reaction.cleanup else { return }
        let plan = job.policy.plan
        if plan.discardsExternalKey { external.forgetKey() }
        if plan.hook != nil { recordsUnknown = true }
        external.cleanedUp(deleting: plan.deletes.contains(.external), teamCode: job.policy.isTeamCode)
        for kind in plan.deletes { forget(kind) }
        if plan.deletesDataKey { forget(.sensitive) }
        model.cleanupEnded(job, clean: true)  // the model's cleanups do not fail
    }

    /// The key service's answer, after every check (the built-in app looks for the user's key then).
    mutating func lookUpExternalKey(_ answer: KeyServiceAnswer) { external.lookUp(for: model.user, answer: answer) }

    /// No record of `kind` can be read any more (deleted, or its key is gone).
    private mutating func forget(_ kind: RecordKind) {
        records = records.compactMapValues { kinds in
            let left = kinds.subtracting([kind])
            return left.isEmpty ? nil : left
        }
    }
}

extension CleanupPolicy {
    /// A team's hook or an app's own cleanup code: what it deletes is not known here.
    var isTeamCode: Bool {
        switch self {
        case .hook, .own: true
        default: false
        }
    }
}
