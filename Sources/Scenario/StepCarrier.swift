import SharedDevice

/// What carries a scenario's steps out: the runner on a real device (`StepDriver`), the
/// fuzzer's model of one (`SimulatedDevice`). One method per step; `StepKind.carriedOut(by:)`
/// is the one switch from a step to its method, so a new step is a compile error in every
/// carrier until each handles it.
///
/// `expect` and `repeat` are not carried out: an `expect` is checked against what the device
/// did, and a `repeat` is unrolled before its steps run.
public protocol StepCarrier {
    /// How a step ends, in the carrier's terms (the runner's work still to await, the
    /// simulation's verdict).
    associatedtype Outcome

    mutating func enroll(_ user: String, password: String?) -> Outcome
    mutating func checkOut(_ user: String, password: String?, from origin: StepKind.Origin) -> Outcome
    mutating func checkIn(from origin: StepKind.Origin) -> Outcome
    mutating func signIn(in app: String, as user: String, password: String?) -> Outcome
    mutating func signOut(in app: String) -> Outcome
    mutating func removeAccount() -> Outcome
    /// The apps in order, `all` and fleets already expanded.
    mutating func lifecycle(_ action: AppLifecycle.Action, of apps: [String]) -> Outcome
    mutating func write(_ kind: RecordKind, count: Int, in app: String) -> Outcome
    mutating func network(online: Bool) -> Outcome
    mutating func lock() -> Outcome
    /// `app` nil: on the lock screen.
    mutating func unlock(in app: String?, as user: String, password: String?) -> Outcome
    mutating func wipe() -> Outcome
    mutating func post(_ name: String) -> Outcome
    mutating func hubProcess(_ action: StepKind.HubAction) -> Outcome
    mutating func wait(_ duration: Duration) -> Outcome
    /// `limit` nil: the carrier's default bound.
    mutating func settle(within limit: Duration?) -> Outcome
}

extension StepKind {
    /// The step as `carrier` carries it out; nil for `expect` and `repeat`, which are not.
    public func carriedOut<Carrier: StepCarrier>(by carrier: inout Carrier) -> Carrier.Outcome? {
        switch self {
        case .enroll(let user, let password): carrier.enroll(user, password: password)
        case .checkout(let user, let password, let origin): carrier.checkOut(user, password: password, from: origin)
        case .checkin(let origin): carrier.checkIn(from: origin)
        case .signin(let app, let user, let password): carrier.signIn(in: app, as: user, password: password)
        case .signout(let app): carrier.signOut(in: app)
        case .removeAccount: carrier.removeAccount()
        case .lifecycle(let action, let apps): carrier.lifecycle(action, of: apps)
        case .write(let app, let kind, let count): carrier.write(kind, count: count, in: app)
        case .network(let online): carrier.network(online: online)
        case .lock: carrier.lock()
        case .unlock(let app, let user, let password): carrier.unlock(in: app, as: user, password: password)
        case .wipe: carrier.wipe()
        case .post(let name): carrier.post(name)
        case .hub(let action): carrier.hubProcess(action)
        case .wait(let duration): carrier.wait(duration)
        case .settle(let limit): carrier.settle(within: limit)
        case .repeat, .expect: nil
        }
    }
}
