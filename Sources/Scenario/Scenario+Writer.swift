import SharedDevice

extension Scenario {
    /// The scenario as a scenario file (Docs/scenarios.md) that `Scenario.parse` reads back to the same scenario.
    /// Values equal to the reader's defaults are left out, so the file reads like a hand-written one;
    /// fleets are written as their apps, one by one, since the model keeps no trace of them.
    public var yaml: String {
        var lines = ["name: \(YAMLText.scalar(name))"]
        if !tags.isEmpty { lines.append("tags: \(YAMLText.flowList(tags.map(YAMLText.scalar)))") }
        if let settings = device.yaml { lines.append("device: \(settings)") }
        if users != Scenario.defaultUsers {
            lines.append(users.isEmpty ? "users: []" : "users:")
            lines += users.map { "  - \($0.yaml)" }
        }
        if !apps.isEmpty {
            lines.append("apps:")
            lines += apps.map { "  - \($0.yaml)" }
        }
        if !steps.isEmpty {
            lines.append("steps:")
            lines += steps.flatMap { $0.yamlLines(indent: "  ", apps: apps.map(\.name)) }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// One `key: value` of a mapping, the value already written as YAML.
typealias Field = (key: String, value: String)

/// Scalars and flow collections as the scenario files write them.
enum YAMLText {
    /// Plain scalars YAML 1.1 reads as booleans or null rather than as text.
    static let keywords: Set = ["yes", "no", "y", "n", "true", "false", "on", "off", "null"]

    /// `text` unquoted when it is a plain name, else double-quoted: names, passwords and commands
    /// can hold anything YAML would otherwise read as syntax, a number or a keyword.
    static func scalar(_ text: String) -> String {
        isPlain(text) ? text : "\"" + text.unicodeScalars.map(escaped).joined() + "\""
    }

    /// A letter or `_`, then letters, digits and `_ . - @ /` (emails, paths); no keyword.
    static func isPlain(_ text: String) -> Bool {
        func isLetter(_ scalar: Unicode.Scalar) -> Bool {
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar == "_"
        }
        guard let first = text.unicodeScalars.first, isLetter(first), !keywords.contains(text.lowercased()) else {
            return false
        }
        return text.unicodeScalars.allSatisfy {
            isLetter($0) || ("0"..."9").contains($0) || ".-@/".unicodeScalars.contains($0)
        }
    }

    /// One character inside double quotes: line breaks, controls and other invisible characters
    /// are escaped, since libyaml folds or refuses them raw.
    static func escaped(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\"": return "\\\""
        case "\\": return "\\\\"
        case "\n": return "\\n"
        case "\t": return "\\t"
        case "\r": return "\\r"
        default:
            let invisible: Set<Unicode.GeneralCategory> = [
                .control, .format, .lineSeparator, .paragraphSeparator, .unassigned,
            ]
            guard invisible.contains(scalar.properties.generalCategory) else { return String(scalar) }
            let hex = String(scalar.value, radix: 16, uppercase: true)
            let (escape, width) = scalar.value > 0xFFFF ? ("\\U", 8) : ("\\u", 4)
            return escape + String(repeating: "0", count: width - hex.count) + hex
        }
    }

    /// `{key: value, …}` of values already written as YAML.
    static func flow(_ fields: [Field]) -> String {
        "{" + fields.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
    }

    static func flowList(_ items: [String]) -> String {
        "[" + items.joined(separator: ", ") + "]"
    }

    static let attosecondUnits: [(suffix: String, size: Int128)] = [
        ("s", 1_000_000_000_000_000_000), ("ms", 1_000_000_000_000_000), ("us", 1_000_000_000_000),
    ]

    /// In the largest unit that holds it exactly; else in nanoseconds, rounded as the reader
    /// rounds (it keeps nothing finer).
    static func duration(_ duration: Duration) -> String {
        let attoseconds = duration.attoseconds
        if let unit = attosecondUnits.first(where: { attoseconds % $0.size == 0 }) {
            return "\(attoseconds / unit.size)\(unit.suffix)"
        }
        return "\((attoseconds + 500_000_000) / 1_000_000_000)ns"
    }
}

extension Device {
    /// The settings that differ from the defaults as a flow mapping; nil when none do.
    var yaml: String? {
        let defaults = Device()
        var fields: [Field] = []
        if policy.shared != defaults.policy.shared { fields.append(("shared", "\(policy.shared)")) }
        if policy.broker != defaults.policy.broker { fields.append(("broker", policy.broker.rawValue)) }
        if policy.broadcastOnSignIn != defaults.policy.broadcastOnSignIn {
            fields.append(
                ("broadcast_on", YAMLText.flowList(policy.broadcastOnSignIn ? ["sign-out", "sign-in"] : ["sign-out"])))
        }
        if online != defaults.online { fields.append(("online", "\(online)")) }
        if policy.passcode != defaults.policy.passcode { fields.append(("passcode", "\(policy.passcode)")) }
        if backgroundTime.grace != defaults.backgroundTime.grace {
            fields.append(("background_grace", YAMLText.duration(backgroundTime.grace)))
        }
        if backgroundTime.task != defaults.backgroundTime.task {
            fields.append(("background_task", YAMLText.duration(backgroundTime.task)))
        }
        if androidFreezeAfter != defaults.androidFreezeAfter {
            fields.append(("android_freeze_after", YAMLText.duration(androidFreezeAfter)))
        }
        return fields.isEmpty ? nil : YAMLText.flow(fields)
    }
}

extension UserEntry {
    /// The name and every field that differs from what the reader derives from it.
    var yaml: String {
        let derived = DirectoryUser(name: user.name, domain: user.domain)
        let candidates: [(key: String, value: String, isDefault: Bool)] = [
            ("name", user.name, false),
            ("role", user.role.rawValue, user.role == derived.role),
            ("staging", user.staging.rawValue, user.staging == derived.staging),
            ("password", password, password == user.name),
            ("first_name", user.firstName, user.firstName == derived.firstName),
            ("last_name", user.lastName, user.lastName == derived.lastName),
            ("email", user.email, user.email == derived.email),
            ("domain", user.domain, user.domain == DirectoryUser(name: user.name).domain),
            ("group_id", user.groupID, user.groupID == derived.groupID),
        ]
        return YAMLText.flow(candidates.filter { !$0.isDefault }.map { ($0.key, YAMLText.scalar($0.value)) })
    }
}

extension AppEntry {
    var yaml: String {
        var fields: [Field] = [("name", YAMLText.scalar(name)), ("sdk", sdk.rawValue)]
        if background { fields.append(("background", "true")) }
        if backgroundTask { fields.append(("background_task", "true")) }
        if let written = cleanup.yaml { fields.append(("cleanup", written)) }
        if let executable { fields.append(("executable", YAMLText.scalar(executable))) }
        if let infoPlist { fields.append(("info_plist", YAMLText.scalar(infoPlist))) }
        if !scanSkips.isEmpty {
            fields.append(("scan", YAMLText.flow([("skip", YAMLText.flowList(scanSkips.map(YAMLText.scalar)))])))
        }
        return YAMLText.flow(fields)
    }
}

extension CleanupPolicy {
    /// `cleanup:`'s value; nil for the default. Own code that keeps nothing is `own`.
    var yaml: String? {
        let keeps: [Field] =
            self.keeps.isEmpty
            ? []
            : [("keeps", YAMLText.flowList(RecordKind.keepable.filter(self.keeps.contains).map(\.rawValue)))]
        switch self {
        case .wipeAll: return nil
        case .hook(let command, _): return YAMLText.flow([("hook", YAMLText.scalar(command))] + keeps)
        case .own: return keeps.isEmpty ? name : YAMLText.flow(keeps)
        default: return name
        }
    }
}

extension Step {
    /// The step's `- ` item at `indent`. Its `error` (or `hub_crash`) goes inside the step's own mapping when it
    /// has one (`checkout: {user: cou1, error: Offline}`), else beside it (`{launch: mail, error: …}`).
    /// `apps`, every app of the scenario in order, is written `all`.
    func yamlLines(indent: String, apps: [String]) -> [String] {
        let (key, value) = kind.yamlValue(apps: apps)
        // At most one of them: a crashed hub answers nothing to expect an error of.
        let error: Field? =
            self.error.map { ("error", $0.rawValue) } ?? hubCrash.map { ("hub_crash", $0.rawValue) }
        switch value {
        case .bare:
            return [indent + "- " + (error.map { "\(key): \(YAMLText.flow([$0]))" } ?? key)]
        case .scalar(let text):
            return [indent + "- " + (error.map { YAMLText.flow([(key, text), $0]) } ?? "\(key): \(text)")]
        case .fields(let fields, let shorthand):
            let all = fields + (error.map { [$0] } ?? [])
            let written = all.count == 1 && all[0].key == shorthand ? all[0].value : YAMLText.flow(all)
            return ["\(indent)- \(key): \(written)"]
        case .block(let lines):
            return ["\(indent)- \(key):"] + lines.map { "\(indent)    \($0)" }
                + (error.map { ["\(indent)  \($0.key): \($0.value)"] } ?? [])
        }
    }
}

/// What follows a step's name.
enum StepValue {
    /// `checkin`: nothing, or just `{error: NAME}`.
    case bare
    case scalar(String)
    /// A mapping that may be written as the value of `shorthand` alone (`checkout: cou1`).
    case fields([Field], shorthand: String?)
    /// The lines of `repeat` and `expect` under the step's name, indented from it.
    case block([String])
}

extension StepKind {
    func yamlValue(apps all: [String]) -> (key: String, value: StepValue) { (name.key, value(apps: all)) }

    /// The step's value under its key.
    private func value(apps all: [String]) -> StepValue {
        let text = YAMLText.scalar
        func password(_ password: String?) -> [Field] { password.map { [("password", text($0))] } ?? [] }
        switch self {
        case .enroll(let user, let secret), .checkout(let user, let secret, .hub):
            return .fields([("user", text(user))] + password(secret), shorthand: "user")
        case .checkout(let user, let secret, .console):
            return .fields([("user", text(user))] + password(secret) + [("from", "console")], shorthand: "user")
        case .checkin(.console): return .fields([("from", "console")], shorthand: nil)
        case .checkin(.hub), .removeAccount, .lock, .wipe: return .bare
        case .signin(let app, let user, let secret):
            return .fields([("app", text(app)), ("user", text(user))] + password(secret), shorthand: nil)
        case .signout(let app): return .fields([("app", text(app))], shorthand: "app")
        case .lifecycle(_, let apps):
            return .scalar(
                apps.count == 1
                    ? text(apps[0])
                    : apps == all ? ExpectTarget.AppGroup.all.rawValue : YAMLText.flowList(apps.map(text)))
        case .write(let app, let kind, let count):
            return .fields([("app", text(app)), ("kind", kind.rawValue), ("count", "\(count)")], shorthand: nil)
        case .network(let online): return .scalar(online ? "online" : "offline")
        case .unlock(let app, let user, let secret):
            return .fields(
                (app.map { [("app", text($0))] } ?? []) + [("user", text(user))] + password(secret), shorthand: "user")
        case .post(let name): return .scalar(text(name))
        case .hub(let action): return .scalar(action.rawValue)
        case .wait(let duration): return .scalar(YAMLText.duration(duration))
        case .settle(let duration): return duration.map { .scalar(YAMLText.duration($0)) } ?? .bare
        case .repeat(let times, let steps):
            return .block(["times: \(times)", "steps:"] + steps.flatMap { $0.yamlLines(indent: "  ", apps: all) })
        case .expect(let expectations): return .block(expectations.map(\.yaml))
        }
    }
}

extension Expectation {
    /// `target: {check, …}`.
    var yaml: String {
        "\(YAMLText.scalar(target.description)): \(YAMLText.flow(fields.map(\.check.yaml)))"
    }
}

extension ExpectField.Check {
    /// The key and value of the check; `hubState` is `state` under `hub`.
    var yaml: Field {
        let text = YAMLText.scalar
        switch self {
        case .state(let state): return ("state", state.rawValue)
        case .user(let user): return ("user", user.map(text) ?? "none")
        case .previous(let user): return ("previous", user.map(text) ?? "none")
        case .callbacks(let callbacks): return ("callbacks", YAMLText.flowList(callbacks.map(text)))
        case .error(let error): return ("error", error.map(text) ?? "none")
        case .leaks(let count): return ("leaks", "\(count)")
        case .exposed(let count): return ("exposed", "\(count)")
        case .retained(let preferences, let common):
            let counts = [("preferences", preferences), ("common", common)].compactMap { key, count in
                count.map { (key, "\($0)") }
            }
            return ("retained", YAMLText.flow(counts))
        case .records(let count): return ("records", "\(count)")
        case .prefsApplied: return ("prefs", "applied")
        case .mechanism(let mechanism): return ("mechanism", mechanism.rawValue)
        case .expired(let ran, nil, nil): return ("expired", "\(ran)")
        case .expired(_, let after, let before):
            let bounds = [("after", after), ("before", before)].compactMap { key, bound in
                bound.map { (key, YAMLText.duration($0)) }
            }
            return ("expired", YAMLText.flow(bounds))
        case .within(let duration): return ("within", YAMLText.duration(duration))
        case .hubState(let state): return ("state", state.rawValue)
        case .account(let user): return ("account", user.map(text) ?? "none")
        case .generation(let generation): return ("generation", "\(generation)")
        case .online(let online): return ("online", "\(online)")
        case .locked(let locked): return ("locked", "\(locked)")
        case .foreground(let app): return ("foreground", text(app))
        }
    }
}
