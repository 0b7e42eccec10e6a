extension Step {
    /// The step in a line, as a scenario writes it.
    public var title: String { error.map { "\(kind.title) (error \($0))" } ?? kind.title }
}

extension StepKind {
    /// The step in a line, as a scenario writes it (without its `error:`).
    public var title: String {
        switch self {
        case .enroll(let user, _): "enroll: \(user)"
        case .checkout(let user, _): "checkout: \(user)"
        case .checkin: "checkin"
        case .signin(let app, let user, _): "signin: \(user) in \(app)"
        case .signout(let app): "signout: \(app)"
        case .removeAccount: "remove-account"
        case .lifecycle(let action, let apps):
            "\(action.rawValue): \(apps.count > 3 ? "\(apps.count) apps" : apps.joined(separator: ", "))"
        case .write(let app, let kind, let count): "write: \(count) \(kind.rawValue) in \(app)"
        case .network(let online): "network: \(online ? "online" : "offline")"
        case .lock: "lock"
        case .unlock(let app, let user, _): "unlock: \(user)" + (app.map { " in \($0)" } ?? "")
        case .wipe: "wipe"
        case .post(let name): "post: \(name)"
        case .hub(let action): "hub: \(action.rawValue)"
        case .wait(let duration): "wait: \(duration)"
        case .settle(let limit): "settle" + (limit.map { ": \($0)" } ?? "")
        case .repeat(let times, _): "repeat \(times)×"
        case .expect(let expectations): "expect: " + expectations.map(\.target.description).joined(separator: ", ")
        }
    }
}
