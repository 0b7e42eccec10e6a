extension Step {
    /// The step in a line, as a scenario writes it.
    public var title: String { error.map { "\(kind.title) (error \($0))" } ?? kind.title }
}

extension StepKind {
    /// The step in a line, as a scenario writes it (without its `error:`): its key, then what
    /// it acts on.
    public var title: String {
        if case .repeat(let times, _) = self { return "\(name.key) \(times)×" }
        return detail.map { "\(name.key): \($0)" } ?? name.key
    }

    /// What the step acts on, as its title shows it; nil when it is its key alone.
    private var detail: String? {
        switch self {
        case .enroll(let user, _), .checkout(let user, _, .hub): user
        case .checkout(let user, _, .console): "\(user) from the console"
        case .checkin(.console): "from the console"
        case .checkin(.hub), .removeAccount, .lock, .wipe, .settle(nil), .repeat: nil
        case .signin(let app, let user, _): "\(user) in \(app)"
        case .signout(let app): app
        case .lifecycle(_, let apps): apps.count > 3 ? "\(apps.count) apps" : apps.joined(separator: ", ")
        case .write(let app, let kind, let count): "\(count) \(kind.rawValue) in \(app)"
        case .network(let online): online ? "online" : "offline"
        case .unlock(let app, let user, _): user + (app.map { " in \($0)" } ?? "")
        case .post(let name): name
        case .hub(let action): action.rawValue
        case .wait(let duration), .settle(let duration?): "\(duration)"
        case .expect(let expectations): expectations.map(\.target.description).joined(separator: ", ")
        }
    }
}
