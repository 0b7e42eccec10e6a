import SharedDevice

/// Each step of the scenario language, declared once: its key in a file, whether it may stand
/// bare (`- checkin`), whether it can fail (and so carry `error:`), and whether the hub may crash
/// in it (`hub_crash:`). The reader, the writer and the check of Docs/scenarios.md's step table
/// go by it. A step's title is a switch over `StepKind`, and the runner and the fuzzer's
/// simulated device carry it out behind `StepCarrier`: the compiler holds each to every step.
public enum StepName: Hashable, Sendable, CaseIterable {
    case enroll, checkout, checkin, signin, signout, removeAccount
    case lifecycle(AppLifecycle.Action)
    case write, network, lock, unlock, wipe, post, hub, wait, settle, `repeat`, expect

    /// In the order Docs/scenarios.md lists them.
    public static var allCases: [StepName] {
        [.enroll, .checkout, .checkin, .signin, .signout, .removeAccount]
            + AppLifecycle.Action.allCases.map(Self.lifecycle)
            + [.write, .network, .lock, .unlock, .wipe, .post, .hub, .wait, .settle, .repeat, .expect]
    }

    /// The step's key in a scenario file.
    public var key: String {
        switch self {
        case .enroll: "enroll"
        case .checkout: "checkout"
        case .checkin: "checkin"
        case .signin: "signin"
        case .signout: "signout"
        case .removeAccount: "remove-account"
        case .lifecycle(let action): action.rawValue
        case .write: "write"
        case .network: "network"
        case .lock: "lock"
        case .unlock: "unlock"
        case .wipe: "wipe"
        case .post: "post"
        case .hub: "hub"
        case .wait: "wait"
        case .settle: "settle"
        case .repeat: "repeat"
        case .expect: "expect"
        }
    }

    public init?(key: String) {
        guard let name = Self.allCases.first(where: { $0.key == key }) else { return nil }
        self = name
    }

    /// The step written bare (`- checkin`), where it may be.
    public var bare: StepKind? {
        switch self {
        case .checkin: .checkin()
        case .removeAccount: .removeAccount
        case .lock: .lock
        case .wipe: .wipe
        case .settle: .settle(nil)
        case .enroll, .checkout, .signin, .signout, .lifecycle, .write, .network, .unlock, .post, .hub, .wait, .repeat,
            .expect:
            nil
        }
    }

    /// Whether it acts on the hub or an app, and so may carry `error:`.
    public var canFail: Bool {
        switch self {
        case .enroll, .checkout, .checkin, .signin, .signout, .removeAccount, .lifecycle, .write, .network, .lock,
            .unlock, .wipe:
            true
        case .post, .hub, .wait, .settle, .repeat, .expect:
            false
        }
    }

    /// Whether it is a change the runner asks of the hub, in which `hub_crash:` may fall.
    public var hubMayCrash: Bool {
        switch self {
        case .checkout, .checkin, .removeAccount, .wipe: true
        case .enroll, .signin, .signout, .lifecycle, .write, .network, .lock, .unlock, .post, .hub, .wait, .settle,
            .repeat, .expect:
            false
        }
    }
}

extension StepKind {
    /// The step's name, from which its key and rules come.
    public var name: StepName {
        switch self {
        case .enroll: .enroll
        case .checkout: .checkout
        case .checkin: .checkin
        case .signin: .signin
        case .signout: .signout
        case .removeAccount: .removeAccount
        case .lifecycle(let action, _): .lifecycle(action)
        case .write: .write
        case .network: .network
        case .lock: .lock
        case .unlock: .unlock
        case .wipe: .wipe
        case .post: .post
        case .hub: .hub
        case .wait: .wait
        case .settle: .settle
        case .repeat: .repeat
        case .expect: .expect
        }
    }
}
