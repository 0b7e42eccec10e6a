import SharedDevice
import Yams

/// `expect:` (Docs/scenarios.md): checks under `hub`, an app, a fleet, or `all` / `msal` / `ws1`.
extension Reader {
    static let appCheckKeys = [
        "state", "user", "previous", "callbacks", "error", "leaks", "exposed", "retained",
        "records", "prefs", "mechanism", "expired", "within",
    ]
    static let hubCheckKeys = ["state", "user", "account", "generation", "online", "locked", "foreground"]

    mutating func expectations(_ node: Node) -> [Expectation]? {
        guard let entries = keyedEntries(node, "expect") else { return nil }
        guard !entries.isEmpty else {
            report(node, "expect: expected at least one of hub, all, msal, ws1 or an app")
            return nil
        }
        var expectations: [Expectation] = []
        for entry in entries {
            let at = location(entry.keyNode)
            if case .hub = ExpectTarget(entry.key) {
                guard let fields = checks(entry, allowed: Self.hubCheckKeys, { $0.hubCheck($1) }) else { continue }
                expectations.append(Expectation(target: .hub, location: at, fields: fields))
            } else if let targets = expectTargets(entry) {
                let sdks = sdks(of: targets)
                if case .group(let group) = targets.first, sdks.isEmpty, !apps.values.contains(where: { $0 == nil }) {
                    // A check of no app would hold whatever the apps do.
                    report(
                        entry.keyNode,
                        "expect: \(group.rawValue) matches no app, so it would check nothing (\(noAppOf(group)))")
                    continue
                }
                guard let fields = checks(entry, allowed: Self.appCheckKeys, { $0.appCheck($1, sdks: sdks) }) else {
                    continue
                }
                expectations += targets.map { Expectation(target: $0, location: at, fields: fields) }
            }
        }
        return expectations
    }

    /// Why `group` covers none of the scenario's apps.
    func noAppOf(_ group: ExpectTarget.AppGroup) -> String {
        guard !appOrder.isEmpty else { return "the scenario declares no apps" }
        let family = group == .ws1 ? "Workspace ONE" : "MSAL"
        return "no app uses \(family); the apps are \(appSummary.joined(separator: ", "))"
    }

    /// A group keeps its name (the runner knows the apps' kinds); a fleet becomes its members.
    mutating func expectTargets(_ entry: Entry) -> [ExpectTarget]? {
        if case .group(let group) = ExpectTarget(entry.key) { return [.group(group)] }
        if let members = fleets[entry.key] { return members.map(ExpectTarget.app) }
        guard apps[entry.key] != nil else {
            let known = appSummary.isEmpty ? "" : "; the apps are \(appSummary.joined(separator: ", "))"
            report(
                entry.keyNode,
                "unknown app \(Self.shown(entry.key)) in expect (expected hub, all, msal, ws1 or an app\(known))")
            return nil
        }
        return [.app(entry.key)]
    }

    mutating func checks(
        _ entry: Entry, allowed: [String],
        _ check: (inout Reader, Entry) -> ExpectField.Check?
    ) -> [ExpectField]? {
        if case .mapping(let raw) = entry.value, raw.isEmpty {
            report(entry.value, "\(entry.key): expected at least one of \(allowed.joined(separator: ", "))")
            return nil
        }
        guard let fields = mapping(entry.value, "the expectation for \(entry.key)", allowed: allowed) else {
            return nil
        }
        var result: [ExpectField] = []
        for field in fields.entries {
            if let value = check(&self, field) {
                result.append(ExpectField(location: location(field.keyNode), check: value))
            }
        }
        return result.count == fields.entries.count ? result : nil
    }

    /// One check under an app or group, whose apps embed `sdks`.
    mutating func appCheck(_ field: Entry, sdks: [SDKKind]) -> ExpectField.Check? {
        let (key, value) = (field.key, field.value)
        switch key {
        case "state": return choice(value, key, ExpectField.AppState.self).map { .state($0) }
        case "user": return userOrNone(value, key).map { .user($0) }
        case "previous": return userOrNone(value, key).map { .previous($0) }
        case "callbacks": return callbacks(value, sdks: sdks).map { .callbacks($0) }
        case "error":
            if value.scalar?.string == "none" { return .error(nil) }
            return errorName(value, key).map { .error($0) }
        case "leaks": return int(value, key, in: 0...Int.max).map { .leaks($0) }
        case "exposed": return int(value, key, in: 0...Int.max).map { .exposed($0) }
        case "records": return int(value, key, in: 0...Int.max).map { .records($0) }
        case "retained": return retained(value)
        case "prefs":
            guard value.scalar?.string == "applied" else {
                expected(key, "applied", found: value)
                return nil
            }
            return .prefsApplied
        case "mechanism": return choice(value, key, Mechanism.self).map { .mechanism($0) }
        case "expired": return expired(value)
        default: return duration(value, key).map { .within($0) }  // "within", the last allowed key
        }
    }

    mutating func hubCheck(_ field: Entry) -> ExpectField.Check? {
        let (key, value) = (field.key, field.value)
        switch key {
        case "state": return choice(value, key, Session.State.self).map { .hubState($0) }
        case "user": return userOrNone(value, key).map { .user($0) }
        case "account": return userOrNone(value, key).map { .account($0) }
        case "generation":
            let expecting = "a whole number from 0 to \(UInt64.max)"
            guard let text = text(value, key, expecting: expecting) else { return nil }
            guard let generation = UInt64(text) else {
                expected(key, expecting, found: value)
                return nil
            }
            return .generation(generation)
        case "online": return bool(value, key).map { .online($0) }
        case "locked": return bool(value, key).map { .locked($0) }
        default:  // "foreground": the Hub app or an app
            if let name = value.scalar?.string, ExpectTarget(name) == .hub { return .foreground(name) }
            return appRef(value, key).map { .foreground($0) }
        }
    }

    /// A user name, or `none` (nil).
    mutating func userOrNone(_ node: Node, _ what: String) -> String?? {
        if node.scalar?.string == "none" { return .some(nil) }
        return userRef(node, what).map { .some($0) }
    }

    mutating func retained(_ node: Node) -> ExpectField.Check? {
        if case .mapping(let raw) = node, raw.isEmpty {
            report(node, "retained: expected preferences, common or both")
            return nil
        }
        guard let fields = mapping(node, "retained", allowed: ["preferences", "common"]) else { return nil }
        let preferences = fields["preferences"].map { int($0.value, "preferences", in: 0...Int.max) }
        let common = fields["common"].map { int($0.value, "common", in: 0...Int.max) }
        guard preferences != .some(nil), common != .some(nil) else { return nil }
        return .retained(preferences: preferences ?? nil, common: common ?? nil)
    }

    /// `expired: true` / `false`, or `{after: DURATION, before: DURATION}` (either or both):
    /// the handlers ran, that long after the app entered the background.
    mutating func expired(_ node: Node) -> ExpectField.Check? {
        guard case .mapping(let raw) = node else { return bool(node, "expired").map { .expired(ran: $0) } }
        if raw.isEmpty {
            report(node, "expired: expected true, false, or {after: DURATION, before: DURATION}")
            return nil
        }
        guard let fields = mapping(node, "expired", allowed: ["after", "before"]) else { return nil }
        let after = fields["after"].map { duration($0.value, "after") }
        let before = fields["before"].map { duration($0.value, "before") }
        guard after != .some(nil), before != .some(nil) else { return nil }
        if let after = after ?? nil, let before = before ?? nil, before < after, let entry = fields["before"] {
            let written = { (key: String) in fields[key]?.value.scalar?.string ?? "" }
            report(
                entry.value,
                "before: \(written("before")) is earlier than after: \(written("after")), so nothing could hold")
            return nil
        }
        return .expired(ran: true, after: after ?? nil, before: before ?? nil)
    }

    /// YAML splits a flow list at every comma, so `[account-changed(cou1,none)]` arrives as two
    /// items: items are joined back until their parentheses balance, keeping each callback as
    /// Docs/scenarios.md writes it. Each must be a callback of every SDK in `sdks`.
    mutating func callbacks(_ node: Node, sdks: [SDKKind]) -> [String]? {
        guard let items = list(node, "callbacks", of: "callbacks") else { return nil }
        var result: [(text: String, node: Node)] = []
        var open: (text: String, node: Node)?
        for item in items {
            guard let text = text(item, "callbacks", expecting: "a callback such as wipe or initial-check") else {
                return nil
            }
            let joined = open.map { ($0.text + "," + text, $0.node) } ?? (text, item)
            let depth = joined.0.filter { $0 == "(" }.count - joined.0.filter { $0 == ")" }.count
            if depth > 0 {
                open = joined
            } else {
                result.append(joined)
                open = nil
            }
        }
        if let open {
            report(node, "callbacks: unbalanced parenthesis in '\(Self.shown(open.text))'")
            return nil
        }
        let known = result.map { isCallback($0.text, at: $0.node, sdks: sdks) }
        return known.allSatisfy { $0 } ? result.map(\.text) : nil
    }
}
