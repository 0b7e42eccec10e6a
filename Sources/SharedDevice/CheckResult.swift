/// A callback an SDK made, as its own documentation names it (Docs/behaviour.md §4–§6). Its
/// `description` is the word the trace, the snapshot and a scenario's `callbacks:` use for it.
public enum SDKCallback: Hashable, Sendable, CustomStringConvertible {
    /// MSAL (iOS): `getCurrentAccount`'s completion, with the current account and the one the
    /// app's previous call saw (nil: none).
    case currentAccount(current: String?, previous: String?)
    /// MSAL (Android): `onAccountChanged(prior, current)`.
    case accountChanged(prior: String?, current: String?)
    /// MSAL (Android): `onAccountLoaded(current)`.
    case accountLoaded(String?)
    /// Workspace ONE: `controllerDidWipeCurrentUserData`.
    case wipe
    /// Workspace ONE: `controllerDidDetectUserChange`.
    case userChanged
    /// Workspace ONE: `controllerDidFinishInitialCheck`, with its error if any.
    case initialCheck(error: String?)

    /// What a callback is, by the word the trace, the snapshot and a scenario use for it: what an
    /// SDK calls at most once per check (Docs/behaviour.md §6).
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        case currentAccount = "current-account"
        case accountChanged = "account-changed"
        case accountLoaded = "account-loaded"
        case wipe
        case userChanged = "user-changed"
        case initialCheck = "initial-check"
    }

    /// A callback's shape: its kind and what each argument names, without their values.
    public struct Form: Hashable, Sendable {
        public enum Argument: Hashable, Sendable { case user, error }

        public let kind: Kind
        public let arguments: [Argument]
    }

    /// The callbacks an app of `sdk` can get, in the order its SDK's documentation lists them.
    public static func forms(of sdk: SDKKind) -> [Form] {
        let callbacks: [SDKCallback] =
            switch sdk {
            case .msal: [.currentAccount(current: nil, previous: nil)]
            case .msalAndroid: [.accountChanged(prior: nil, current: nil), .accountLoaded(nil)]
            case .ws1: [.wipe, .userChanged, .initialCheck(error: nil), .initialCheck(error: "")]
            }
        return callbacks.map(\.form)
    }

    public var kind: Kind {
        switch self {
        case .currentAccount: .currentAccount
        case .accountChanged: .accountChanged
        case .accountLoaded: .accountLoaded
        case .wipe: .wipe
        case .userChanged: .userChanged
        case .initialCheck: .initialCheck
        }
    }

    public var form: Form {
        let arguments: [Form.Argument] =
            switch self {
            case .currentAccount, .accountChanged: [.user, .user]
            case .accountLoaded: [.user]
            case .wipe, .userChanged, .initialCheck(nil): []
            case .initialCheck(_?): [.error]
            }
        return Form(kind: kind, arguments: arguments)
    }

    /// The users the callback names, in its text's order (`none` left out).
    public var users: [String] {
        switch self {
        case .currentAccount(let first, let second), .accountChanged(let first, let second):
            [first, second].compactMap { $0 }
        case .accountLoaded(let user): user.map { [$0] } ?? []
        case .wipe, .userChanged, .initialCheck: []
        }
    }

    /// The initial check's error, if it failed.
    public var error: String? {
        if case .initialCheck(let error) = self { error } else { nil }
    }

    /// `current-account(cou2,cou1)`, `account-loaded(none)`, `wipe`, `initial-check(HubUnreachable)`.
    public var description: String {
        let arguments: [String] =
            switch self {
            case .currentAccount(let first, let second), .accountChanged(let first, let second):
                [Self.word(first), Self.word(second)]
            case .accountLoaded(let user): [Self.word(user)]
            case .wipe, .userChanged, .initialCheck(nil): []
            case .initialCheck(let error?): [error]
            }
        return arguments.isEmpty ? kind.rawValue : "\(kind.rawValue)(\(arguments.joined(separator: ",")))"
    }

    /// Reads a `description` back; nil for a text that is no callback of that kind and arity.
    /// The arguments are taken as written: whether they name known users or errors is for the
    /// reader to say.
    public init?(text: String) {
        var word = Substring(text)
        var arguments: [String] = []
        if let open = text.firstIndex(of: "("), text.hasSuffix(")") {
            word = text[..<open]
            arguments = text[text.index(after: open)..<text.index(before: text.endIndex)]
                .split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        guard let kind = Kind(rawValue: String(word)) else { return nil }
        let user = { (word: String) in word == "none" ? nil : word }
        switch (kind, arguments.count) {
        case (.currentAccount, 2): self = .currentAccount(current: user(arguments[0]), previous: user(arguments[1]))
        case (.accountChanged, 2): self = .accountChanged(prior: user(arguments[0]), current: user(arguments[1]))
        case (.accountLoaded, 1): self = .accountLoaded(user(arguments[0]))
        case (.wipe, 0): self = .wipe
        case (.userChanged, 0): self = .userChanged
        case (.initialCheck, 0): self = .initialCheck(error: nil)
        case (.initialCheck, 1): self = .initialCheck(error: arguments[0])
        default: return nil
        }
    }

    /// How a callback names a user: the name, or `none`.
    private static func word(_ user: String?) -> String { user ?? "none" }
}

/// What one SDK check told the app: the callbacks it made and what the SDK knows besides. The
/// facades hand it to the host, which traces it; the domain decides on it (`AppModel.heard`,
/// `UserChange`).
public struct CheckResult: Sendable, Equatable {
    public var callbacks: [SDKCallback]
    /// Whom the SDK says the app serves now (nil: nobody).
    public var user: String?
    /// The previous account of an iOS MSAL result, when the check has one.
    public var previous: String??
    /// Workspace ONE: the app's UI is blocked until it is launched again.
    public var blocked: Bool
    /// False when this was no detection opportunity for the SDK (a Workspace ONE app's return
    /// to the foreground while blocked): it did not look, and the app learned nothing.
    public var looked: Bool
    /// Workspace ONE deleted its data key (always before `wipe`).
    public var keysDeleted: Bool
    /// The SDK acted on its answer but could not save its state to the keychain (it writes
    /// again at its next check).
    public var keychainFailure: String?
    /// The SDK acted, but the hub did not answer (a Workspace ONE cold start): the callbacks say
    /// nothing of the user.
    public var failure: String?

    public init(
        callbacks: [SDKCallback], user: String?, previous: String?? = nil, blocked: Bool = false,
        looked: Bool = true, keysDeleted: Bool = false, keychainFailure: String? = nil, failure: String? = nil
    ) {
        self.callbacks = callbacks
        self.user = user
        self.previous = previous
        self.blocked = blocked
        self.looked = looked
        self.keysDeleted = keysDeleted
        self.keychainFailure = keychainFailure
        self.failure = failure
    }

    /// Not a detection opportunity for the SDK: it did not look.
    public static let noOpportunity = CheckResult(callbacks: [], user: nil, looked: false)
}

extension CheckResult {
    /// An iOS MSAL result: one `current-account` callback, and its previous account.
    public init(_ result: MSALAccountRule.CurrentAccount) {
        self.init(
            callbacks: [result.callback], user: result.current?.username, previous: .some(result.previous?.username))
    }

    /// An Android MSAL check's callbacks; the app now serves the account the last one names.
    public init(_ callbacks: [AndroidMSALAccountRule.Callback]) {
        self.init(callbacks: callbacks.map(\.callback), user: callbacks.last?.account?.username)
    }

    /// A Workspace ONE detection the SDK made, given the session the hub answered (nil: it did not).
    public init(_ effects: [WorkspaceOneSessionRule.Effect], session: Session?) {
        self.init(
            callbacks: effects.compactMap { if case .callback(let callback) = $0 { callback.callback } else { nil } },
            user: session?.user, blocked: effects.contains(.block), keysDeleted: effects.contains(.deleteDataKeys),
            failure: session == nil ? WorkspaceOneSessionRule.hubUnreachableError : nil)
    }
}
