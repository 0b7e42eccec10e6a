import SharedDevice
import Yams

/// `steps:` (Docs/scenarios.md): each written as a bare name (`- checkin`) or a one-key mapping
/// (`- checkout: cou1`), optionally with `error: NAME` beside it or inside its mapping.
extension Reader {
    static let stepNames = StepName.allCases.map(\.key)

    mutating func stepList(_ node: Node, _ what: String = "steps") -> [Step]? {
        list(node, what, of: "steps")?.compactMap { step($0) }
    }

    mutating func step(_ node: Node) -> Step? {
        guard stepBudget > 0 else { return nil }
        stepBudget -= 1
        if stepBudget == 0 {
            report(node, "too many steps: more than 100000 once aliases are expanded")
            return nil
        }
        switch node {
        case .scalar where !Self.isNull(node):
            return bareStep(node)
        case .mapping:
            return mappingStep(node)
        default:
            expected("step", "a step such as checkin or checkout: cou1", found: node)
            return nil
        }
    }

    mutating func bareStep(_ node: Node) -> Step? {
        let key = node.scalar?.string ?? ""
        guard let name = StepName(key: key) else {
            unknownStep(node, key)
            return nil
        }
        guard let kind = name.bare else {
            report(node, "\(key) needs a value (\(key): …)")
            return nil
        }
        return Step(location: location(node), kind: kind)
    }

    mutating func mappingStep(_ node: Node) -> Step? {
        guard let entries = keyedEntries(node, "step") else { return nil }
        let main = entries.filter { $0.key != "error" && $0.key != "hub_crash" }
        guard main.count == 1, let entry = main.first else {
            report(
                node,
                main.isEmpty
                    ? "a step needs a name such as checkout: cou1"
                    : "one step per list item, found \(main.map(\.key).joined(separator: ", ")) (write each as its own - item)"
            )
            return nil
        }
        var errorNode = entries.first { $0.key == "error" }?.value
        var crashNode = entries.first { $0.key == "hub_crash" }?.value
        guard let name = StepName(key: entry.key) else {
            unknownStep(entry.keyNode, entry.key)
            return nil
        }
        var nested = Nested()
        guard let kind = stepKind(name, entry.value, nested: &nested) else { return nil }
        if let inner = nested.error {
            if errorNode != nil { report(inner, "error: given twice for one step") }
            errorNode = inner
        }
        if let inner = nested.hubCrash {
            if crashNode != nil { report(inner, "hub_crash: given twice for one step") }
            crashNode = inner
        }
        var crash: HubCrashPoint?
        if let crashNode {
            guard let point = hubCrash(crashNode, step: name, error: errorNode) else { return nil }
            crash = point
        }
        var error: DeviceError?
        if let errorNode {
            if name.canFail {
                error = choice(errorNode, "error", DeviceError.self)
            } else {
                report(
                    errorNode,
                    "error: does not apply to \(entry.key) (only a step that acts on the hub or an app can fail)")
            }
        } else if case .enroll(let user, _) = kind, users[user]?.role == .user {
            // Always refused: without `error: NotStagingUser` it would only fail the run later.
            report(
                entry.value,
                "enroll needs a staging user: \(user) has role user (add error: NotStagingUser to expect the refusal)")
        }
        return Step(location: location(node), error: error, hubCrash: crash, kind: kind)
    }

    /// `hub_crash: POINT`: where in the step's change the hub dies (Docs/scenarios.md).
    mutating func hubCrash(_ node: Node, step: StepName, error: Node?) -> HubCrashPoint? {
        guard step.hubMayCrash else {
            let crashable = StepName.allCases.filter(\.hubMayCrash).map(\.key).joined(separator: ", ")
            report(
                node,
                "hub_crash: does not apply to \(step.key) (only to a change the runner asks of the hub: \(crashable))")
            return nil
        }
        if error != nil {
            report(node, "hub_crash: a hub that crashes answers nothing, so the step cannot also expect error:")
            return nil
        }
        return choice(node, "hub_crash", HubCrashPoint.self)
    }

    mutating func unknownStep(_ node: Node, _ name: String) {
        if let missing = Self.missingSpace(name, names: Self.stepNames) { return report(node, missing) }
        report(node, "unknown step \(Self.shown(name)) (expected one of \(Self.stepNames.joined(separator: ", ")))")
    }

    /// What a step's own mapping says beside the step: `error:`, and `hub_crash:` for a change
    /// the runner asks of the hub.
    struct Nested {
        var error: Node?
        var hubCrash: Node?
    }

    /// The step `name` with its value; `nested` receives an `error:` and a `hub_crash:` written
    /// inside its mapping.
    mutating func stepKind(_ name: StepName, _ value: Node, nested: inout Nested) -> StepKind? {
        let key = name.key
        switch name {
        case .lifecycle(let action): return appTargets(value, key).map { .lifecycle(action, apps: $0) }
        case .enroll: return credentials(value, key, &nested).map { .enroll(user: $0.user, password: $0.password) }
        case .checkout:
            return credentials(value, key, &nested).map {
                .checkout(user: $0.user, password: $0.password, from: $0.origin)
            }
        case .settle: return Self.isNull(value) ? .settle(nil) : duration(value, key).map { .settle($0) }
        case .checkin: return checkin(value, &nested)
        case .removeAccount, .lock, .wipe: return onlyError(value, key, &nested) ? name.bare : nil
        case .signin: return signin(value, &nested)
        case .signout: return signout(value, &nested)
        case .write: return write(value, &nested)
        case .network: return choice(value, key, Network.self).map { .network(online: $0 == .online) }
        case .unlock: return unlock(value, &nested)
        case .post: return notifyName(value).map { .post(name: $0) }
        case .hub: return choice(value, key, StepKind.HubAction.self).map { .hub($0) }
        case .wait: return duration(value, key).map { .wait($0) }
        case .repeat: return repeatStep(value)
        case .expect: return expectations(value).map { .expect($0) }
        }
    }

    enum Network: String, CaseIterable { case online, offline }

    /// A `post` step's name, under the notification center's one rule (Docs/behaviour.md §3).
    mutating func notifyName(_ node: Node) -> String? {
        guard let name = text(node, "post", expecting: "a notification name") else { return nil }
        guard NotifyCenter.isValidName(name) else {
            report(node, "post: \(NotifyCenter.nameRule) (this one has \(name.utf8.count))")
            return nil
        }
        return name
    }

    /// The value of a step that takes none: nothing, or `{error: NAME}`.
    mutating func onlyError(_ node: Node, _ step: String, _ nested: inout Nested) -> Bool {
        if Self.isNull(node) { return true }
        guard case .mapping = node else {
            expected(step, "nothing, {error: NAME} or {hub_crash: POINT}", found: node)
            return false
        }
        guard let fields = mapping(node, step, allowed: ["error", "hub_crash"]) else { return false }
        nested.error = fields["error"]?.value
        nested.hubCrash = fields["hub_crash"]?.value
        return true
    }

    /// `enroll` / `checkout`: `USER` or `{user, password?, error?}`, and for `checkout`,
    /// `from: hub` or `from: console`.
    mutating func credentials(_ node: Node, _ step: String, _ nested: inout Nested) -> (
        user: String, password: String?, origin: StepKind.Origin
    )? {
        guard case .mapping = node else { return userRef(node, step).map { ($0, nil, .hub) } }
        let allowed = ["user", "password", "error", "hub_crash"] + (step == StepName.checkout.key ? ["from"] : [])
        guard let fields = mapping(node, step, allowed: allowed, required: ["user"]) else { return nil }
        nested.error = fields["error"]?.value
        nested.hubCrash = fields["hub_crash"]?.value
        let password = fields["password"].map { text($0.value, "password") }
        let origin = fields["from"].map { choice($0.value, "from", StepKind.Origin.self) }
        guard let user = fields["user"].flatMap({ userRef($0.value, "user") }), password != .some(nil),
            origin != .some(nil)
        else {
            return nil
        }
        return (user, password ?? nil, (origin ?? nil) ?? .hub)
    }

    /// `checkin`: bare, or `{from?, error?, hub_crash?}`.
    mutating func checkin(_ node: Node, _ nested: inout Nested) -> StepKind? {
        if Self.isNull(node) { return .checkin() }
        guard case .mapping = node else {
            expected("checkin", "nothing or {from: hub|console, error: NAME, hub_crash: POINT}", found: node)
            return nil
        }
        guard let fields = mapping(node, "checkin", allowed: ["from", "error", "hub_crash"]) else { return nil }
        nested.error = fields["error"]?.value
        nested.hubCrash = fields["hub_crash"]?.value
        guard let entry = fields["from"] else { return .checkin() }
        return choice(entry.value, "from", StepKind.Origin.self).map { .checkin(from: $0) }
    }

    /// `signin: {app, user, password?}`, in an MSAL app.
    mutating func signin(_ node: Node, _ nested: inout Nested) -> StepKind? {
        guard
            let fields = mapping(
                node, "signin", allowed: ["app", "user", "password", "error"], required: ["app", "user"])
        else { return nil }
        nested.error = fields["error"]?.value
        let app = fields["app"].flatMap { msalApp($0.value, "signin") }
        let user = fields["user"].flatMap { userRef($0.value, "user") }
        let password = fields["password"].map { text($0.value, "password") }
        guard let app, let user, password != .some(nil) else { return nil }
        return .signin(app: app, user: user, password: password ?? nil)
    }

    /// `signout: APP` or `signout: {app}`, in an MSAL app.
    mutating func signout(_ node: Node, _ nested: inout Nested) -> StepKind? {
        guard case .mapping = node else { return msalApp(node, "signout").map { .signout(app: $0) } }
        guard let fields = mapping(node, "signout", allowed: ["app", "error"], required: ["app"]) else { return nil }
        nested.error = fields["error"]?.value
        return fields["app"].flatMap { msalApp($0.value, "signout") }.map { .signout(app: $0) }
    }

    mutating func write(_ node: Node, _ nested: inout Nested) -> StepKind? {
        guard
            let fields = mapping(node, "write", allowed: ["app", "kind", "count", "error"], required: ["app", "kind"])
        else { return nil }
        nested.error = fields["error"]?.value
        let app = fields["app"].flatMap { appRef($0.value, "app") }
        let kind = fields["kind"].flatMap { choice($0.value, "kind", RecordKind.self) }
        let count = fields["count"].map { int($0.value, "count", in: 1...RecordKind.mostPerWrite) } ?? 1
        guard let app, let kind, let count else { return nil }
        return .write(app: app, kind: kind, count: count)
    }

    /// `unlock: USER` or `unlock: {app?, user, password?}`.
    mutating func unlock(_ node: Node, _ nested: inout Nested) -> StepKind? {
        guard case .mapping = node else {
            return userRef(node, "unlock").map { .unlock(app: nil, user: $0, password: nil) }
        }
        guard let fields = mapping(node, "unlock", allowed: ["app", "user", "password", "error"], required: ["user"])
        else { return nil }
        nested.error = fields["error"]?.value
        let app = fields["app"].map { appRef($0.value, "app") }
        let user = fields["user"].flatMap { userRef($0.value, "user") }
        let password = fields["password"].map { text($0.value, "password") }
        guard let user, app != .some(nil), password != .some(nil) else { return nil }
        return .unlock(app: app ?? nil, user: user, password: password ?? nil)
    }

    mutating func repeatStep(_ node: Node) -> StepKind? {
        guard let fields = mapping(node, "repeat", allowed: ["times", "steps"], required: ["times", "steps"]) else {
            return nil
        }
        let times = fields["times"].flatMap { int($0.value, "times", in: 1...Int.max) }
        var steps: [Step]?
        if let entry = fields["steps"] {
            if case .sequence(let items) = entry.value, items.isEmpty {
                report(entry.value, "steps: expected at least one step to repeat")
            } else {
                steps = stepList(entry.value)
            }
        }
        guard let times, let steps else { return nil }
        let repeated = StepKind.repeat(times: times, steps: steps)
        if let entry = fields["times"], repeated.runCount > Step.mostRunSteps {
            report(
                entry.value,
                "times: \(times) repeats of \(Step.runCount(of: steps)) steps is more than the "
                    + "\(Step.mostRunSteps) steps a scenario may run")
            return nil
        }
        return repeated
    }

    // MARK: - References

    mutating func userRef(_ node: Node, _ what: String) -> String? {
        guard let name = text(node, what, expecting: "a user name") else { return nil }
        guard users[name] != nil else {
            report(
                node, "\(what): unknown user \(Self.shown(name)) (the users are \(userOrder.joined(separator: ", ")))")
            return nil
        }
        return name
    }

    /// One app; a fleet's name is refused (the step acts on one app).
    mutating func appRef(_ node: Node, _ what: String) -> String? {
        guard let name = text(node, what, expecting: "an app name") else { return nil }
        if let members = fleets[name] {
            report(node, "\(what): \(name) is a fleet; name one of its apps (\(Self.range(members)))")
            return nil
        }
        guard apps[name] != nil else {
            unknownApp(node, what, name)
            return nil
        }
        return name
    }

    /// An app of either MSAL flavour: Workspace ONE apps have no sign-in of their own.
    mutating func msalApp(_ node: Node, _ step: String) -> String? {
        guard let name = appRef(node, "app") else { return nil }
        if case .some(.some(let app)) = apps[name], app.sdk == .ws1 {
            report(node, "\(step) needs an MSAL app: \(name) embeds ws1, which has no sign-in of its own")
            return nil
        }
        return name
    }

    /// `APP`, `[APPS]` or `all`, in order; a fleet's name stands for its members.
    mutating func appTargets(_ node: Node, _ what: String) -> [String]? {
        switch node {
        case .sequence(let items):
            guard !items.isEmpty else {
                report(node, "\(what): expected at least one app")
                return nil
            }
            let names = items.map { item -> [String]? in
                if item.scalar?.string == ExpectTarget.AppGroup.all.rawValue {
                    report(item, "\(what): all stands alone (\(what): all)")
                    return nil
                }
                return appOrFleet(item, what)
            }
            return names.contains { $0 == nil } ? nil : names.flatMap { $0 ?? [] }
        case .scalar where node.scalar?.string == ExpectTarget.AppGroup.all.rawValue:
            return appOrder
        case .scalar where !Self.isNull(node):
            return appOrFleet(node, what)
        default:
            expected(what, "an app, a list of apps or all", found: node)
            return nil
        }
    }

    mutating func appOrFleet(_ node: Node, _ what: String) -> [String]? {
        guard let name = text(node, what, expecting: "an app name") else { return nil }
        if let members = fleets[name] { return members }
        guard apps[name] != nil else {
            unknownApp(node, what, name)
            return nil
        }
        return [name]
    }

    mutating func unknownApp(_ node: Node, _ what: String, _ name: String) {
        let known = appSummary.isEmpty ? "there are no apps" : "the apps are \(appSummary.joined(separator: ", "))"
        report(node, "\(what): unknown app \(Self.shown(name)) (\(known))")
    }

    /// `fleet1 … fleet50`.
    static func range(_ members: [String]) -> String {
        members.count > 1 ? "\(members[0]) … \(members[members.count - 1])" : members.joined()
    }
}
