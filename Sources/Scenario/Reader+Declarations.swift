import SharedDevice
import Yams

/// The scenario's head: `name`, `device`, `users` and `apps` (Docs/scenarios.md).
extension Reader {
    static let topKeys = ["name", "tags", "device", "users", "apps", "steps"]

    mutating func scenario(_ root: Node?) -> Scenario? {
        guard let root else {
            report(
                at: Location(file: file, line: 1, column: 1),
                "empty scenario: expected a mapping with \(Self.topKeys.joined(separator: ", "))")
            return nil
        }
        guard let top = mapping(root, "the scenario", allowed: Self.topKeys) else { return nil }
        // A key left empty (`users:`) counts as absent.
        func present(_ key: String) -> Node? { top[key].map(\.value).flatMap { Self.isNull($0) ? nil : $0 } }

        let name = present("name").flatMap { text($0, "name") } ?? Self.defaultName(file)
        let tags = present("tags").map { tagList($0) } ?? []
        let device = present("device").map { deviceSettings($0) } ?? Device()
        let users = present("users").map { userList($0) } ?? Scenario.defaultUsers
        for entry in users { register(entry.user) }
        let apps = present("apps").map { appList($0) } ?? []
        let steps = present("steps").flatMap { stepList($0) } ?? []
        if let node = present("steps"), Step.runCount(of: steps) > Step.mostRunSteps {
            report(node, "steps: more than the \(Step.mostRunSteps) steps a scenario may run, every repeat unrolled")
        }
        return Scenario(name: name, file: file, device: device, users: users, apps: apps, steps: steps, tags: tags)
    }

    /// `tags: [slow, fleet]` or `tags: slow`: names of letters, digits, '.', '_' or '-', each once.
    mutating func tagList(_ node: Node) -> [String] {
        let items: [Node]
        if case .sequence = node { items = list(node, "tags", of: "tag names") ?? [] } else { items = [node] }
        var tags: [String] = []
        for item in items {
            guard
                let tag = identifier(
                    item, "tag", expecting: "a tag name of letters, digits, '.', '_' or '-'",
                    allowed: Self.isNameCharacter, first: Self.isNameStart)
            else { continue }
            if tags.contains(tag) { report(item, "duplicate tag \(tag)") } else { tags.append(tag) }
        }
        return tags
    }

    /// A scenario without `name` is called after its file.
    static func defaultName(_ file: String) -> String {
        let base = file.split(separator: "/").last.map(String.init) ?? file
        return base.hasSuffix(".yaml")
            ? String(base.dropLast(5)) : base.hasSuffix(".yml") ? String(base.dropLast(4)) : base
    }

    // MARK: - device

    mutating func deviceSettings(_ node: Node) -> Device {
        var device = Device()
        guard
            let fields = mapping(
                node, "device",
                allowed: [
                    "shared", "broker", "broadcast_on", "online", "passcode", "background_grace",
                    "background_task", "android_freeze_after",
                ])
        else {
            return device
        }
        if let value = fields["shared"].flatMap({ bool($0.value, "shared") }) { device.policy.shared = value }
        if let value = fields["broker"].flatMap({ choice($0.value, "broker", BrokerSetup.self) }) {
            device.policy.broker = value
        }
        if let value = fields["online"].flatMap({ bool($0.value, "online") }) { device.online = value }
        if let value = fields["passcode"].flatMap({ bool($0.value, "passcode") }) { device.policy.passcode = value }
        if let entry = fields["broadcast_on"], let onSignIn = broadcastOnSignIn(entry.value) {
            device.policy.broadcastOnSignIn = onSignIn
        }
        if let value = fields["background_grace"].flatMap({ backgroundTime($0.value, "background_grace") }) {
            device.backgroundTime.grace = value
        }
        if let value = fields["background_task"].flatMap({ backgroundTime($0.value, "background_task") }) {
            device.backgroundTime.task = value
        }
        if let value = fields["android_freeze_after"].flatMap({ backgroundTime($0.value, "android_freeze_after") }) {
            device.androidFreezeAfter = value
        }
        return device
    }

    /// `background_grace`, `background_task` or `android_freeze_after`: 0s (suspended at once)
    /// up to 10 minutes.
    mutating func backgroundTime(_ node: Node, _ what: String) -> Duration? {
        guard let value = duration(node, what) else { return nil }
        guard value <= BackgroundTime.longest else {
            report(
                node,
                "\(what): at most \(YAMLText.duration(BackgroundTime.longest)) (iOS gives about 5s, 30s with a task; Android freezes a cached app after 10s)"
            )
            return nil
        }
        return value
    }

    enum Broadcast: String, CaseIterable { case signOut = "sign-out", signIn = "sign-in" }

    /// Whether `broadcast_on` adds sign-in; sign-out cannot be left out (the broker always posts then).
    mutating func broadcastOnSignIn(_ node: Node) -> Bool? {
        let items: [Node]
        if case .sequence = node {
            items = list(node, "broadcast_on", of: "sign-out, sign-in") ?? []
        } else {
            items = [node]
        }
        let events = items.compactMap { choice($0, "broadcast_on", Broadcast.self) }
        guard events.count == items.count else { return nil }
        guard events.contains(.signOut) else {
            report(node, "broadcast_on must include sign-out: the broker posts on every global sign-out")
            return nil
        }
        return events.contains(.signIn)
    }

    // MARK: - users

    mutating func userList(_ node: Node) -> [UserEntry] {
        guard let items = list(node, "users", of: "users") else { return [] }
        var entries: [UserEntry] = []
        var seen: [String: Location] = [:]
        for item in items {
            guard let (entry, nameNode) = user(item) else { continue }
            if let first = seen[entry.user.name] {
                report(nameNode, "duplicate user \(entry.user.name) (first at \(first.line):\(first.column))")
                continue
            }
            seen[entry.user.name] = location(nameNode)
            entries.append(entry)
        }
        return entries
    }

    static let userKeys = [
        "name", "password", "role", "staging", "first_name", "last_name", "email", "domain", "group_id",
    ]

    /// `- cou1` or `- {name: cou1, …}`. A mistake in another field keeps that field's default,
    /// so the user still exists and references to it are not reported as well.
    mutating func user(_ node: Node) -> (UserEntry, Node)? {
        if case .scalar = node {
            guard let name = userName(node) else { return nil }
            return (UserEntry(user: DirectoryUser(name: name), password: name), node)
        }
        guard let fields = mapping(node, "a user", allowed: Self.userKeys, required: ["name"]),
            let nameNode = fields["name"]?.value, let name = userName(nameNode)
        else { return nil }
        func string(_ key: String) -> String? { fields[key].flatMap { text($0.value, key) } }
        let role = fields["role"].flatMap { choice($0.value, "role", [DirectoryUser.Role.staging, .user]) } ?? .user
        var staging = DirectoryUser.Staging.multiUser
        if let entry = fields["staging"] {
            if role != .staging {
                report(entry.keyNode, "staging applies to a staging user only (add role: staging)")
            } else if let value = choice(entry.value, "staging", [DirectoryUser.Staging.multiUser, .singleUser]) {
                staging = value
            }
        }
        let defaults = DirectoryUser(name: name)
        let user = DirectoryUser(
            name: name, role: role, staging: staging, firstName: string("first_name"),
            lastName: string("last_name") ?? "", email: string("email"),
            domain: string("domain") ?? defaults.domain, groupID: string("group_id") ?? defaults.groupID)
        return (UserEntry(user: user, password: string("password") ?? name), nameNode)
    }

    /// User names travel in canaries (`SDLAB-CANARY/USER/…`) and on the bus; `none` means no user.
    mutating func userName(_ node: Node) -> String? {
        let name = identifier(
            node, "user name", expecting: "a user name of letters, digits, '.', '_' or '-'",
            allowed: Self.isNameCharacter, first: Self.isNameStart)
        guard name != "none" else {
            report(node, "user name: none means no user and cannot name one")
            return nil
        }
        guard name.map(DirectoryUser.isValidName) != false else {
            report(node, "user name: at most \(DirectoryUser.maxNameLength) characters")
            return nil
        }
        return name
    }

    /// What a user or tag name is made of: ASCII letters, digits, '.', '_' or '-', starting with a
    /// letter or digit (the domain's rule for user names).
    static func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool { DirectoryUser.isNameCharacter(scalar) }

    static func isNameStart(_ scalar: Unicode.Scalar) -> Bool { DirectoryUser.isNameStart(scalar) }

    mutating func register(_ user: DirectoryUser) {
        if users[user.name] == nil { userOrder.append(user.name) }
        users[user.name] = user
    }

    // MARK: - apps

    static let appKeys = [
        "name", "sdk", "background", "background_task", "cleanup", "count", "executable", "info_plist", "scan",
    ]

    /// One `apps` entry before fleets are expanded.
    struct Declared {
        var name: String
        var nameNode: Node
        var count: (Int, Node)?
        /// nil when another field was wrong.
        var app: AppEntry?
    }

    mutating func appList(_ node: Node) -> [AppEntry] {
        guard let items = list(node, "apps", of: "apps") else { return [] }
        // Every declared name first, so a fleet's members are checked against all of them.
        var taken: [String: Location] = [:]
        let unique = items.compactMap { declaredApp($0) }.filter { app in
            if let first = taken[app.name] {
                report(app.nameNode, "duplicate app \(app.name) (first at \(first.line):\(first.column))")
                return false
            }
            taken[app.name] = location(app.nameNode)
            return true
        }
        return unique.flatMap { app in
            guard let (count, countNode) = app.count else {
                appSummary.append(app.name)
                return add([app.name], as: app.app)
            }
            return fleet(app, count: count, countNode: countNode, taken: &taken)
        }
    }

    /// `fleet1 … fleetN`, unless one of them is taken or reserved.
    mutating func fleet(_ app: Declared, count: Int, countNode: Node, taken: inout [String: Location]) -> [AppEntry] {
        apps[app.name] = .some(nil)  // a fleet's own name is known, but is not an app
        let members = (1...count).map { "\(app.name)\($0)" }
        if let clash = members.first(where: { taken[$0] != nil || ExpectTarget.reservedNames.contains($0) }) {
            let with =
                taken[clash].map { "the app \(clash) at \($0.line):\($0.column)" } ?? "the reserved name \(clash)"
            report(countNode, "count \(count) names \(Self.range(members)), which clashes with \(with)")
            return []
        }
        for member in members { taken[member] = location(app.nameNode) }
        fleets[app.name] = members
        appSummary.append(Self.range(members))
        return add(members, as: app.app)
    }

    /// Makes names known to the steps, in order, and returns their entries (none for an
    /// entry that was wrong).
    mutating func add(_ names: [String], as app: AppEntry?) -> [AppEntry] {
        names.compactMap { name in
            var entry = app
            entry?.name = name
            appOrder.append(name)
            apps[name] = .some(entry)
            return entry
        }
    }

    mutating func declaredApp(_ node: Node) -> Declared? {
        guard let fields = mapping(node, "an app", allowed: Self.appKeys, required: ["name", "sdk"]),
            let nameNode = fields["name"]?.value, let name = appName(nameNode)
        else { return nil }
        var count: (Int, Node)?
        if let entry = fields["count"] {
            guard let value = int(entry.value, "count", in: 1...1000) else {
                apps[name] = .some(nil)  // known, so the steps that name it are not reported too
                return nil
            }
            count = (value, entry.value)
        }
        let sdk = fields["sdk"].flatMap { choice($0.value, "sdk", SDKKind.self) }
        let background = fields["background"].map { bool($0.value, "background") } ?? false
        let backgroundTask =
            fields["background_task"].map {
                taskOption($0, background: background, teamBuilt: fields["executable"] != nil, sdk: sdk)
            }
            ?? false
        let executable = fields["executable"].map { executablePath($0.value) }
        let cleanup =
            fields["cleanup"].map { cleanupPolicy($0.value, teamBuilt: fields["executable"] != nil) } ?? .wipeAll
        let skips = fields["scan"].map { scanSkips($0.value) } ?? []
        let infoPlist = fields["info_plist"].map { infoPlistPath($0.value, sdk: sdk) }
        var app: AppEntry?
        if let sdk, let background, let backgroundTask, let cleanup, executable != .some(nil), let skips,
            infoPlist != .some(nil)
        {
            app = AppEntry(
                name: name, sdk: sdk, background: background, backgroundTask: backgroundTask, cleanup: cleanup,
                executable: executable ?? nil, scanSkips: skips, infoPlist: infoPlist ?? nil, location: location(node))
        }
        return Declared(name: name, nameNode: nameNode, count: count, app: app)
    }

    /// `scan: {skip: [GLOB, …]}`: the places of the container the leak scan leaves out.
    mutating func scanSkips(_ node: Node) -> [String]? {
        guard let fields = mapping(node, "scan", allowed: ["skip"], required: ["skip"]), let entry = fields["skip"],
            let items = list(entry.value, "skip", of: "patterns of places in the container")
        else { return nil }
        var patterns: [String] = []
        for item in items {
            guard let pattern = text(item, "skip", expecting: "a pattern such as Library/Caches/vendor/*") else {
                return nil
            }
            guard !pattern.isEmpty else {
                report(item, "skip: an empty pattern matches nothing")
                return nil
            }
            patterns.append(pattern)
        }
        return patterns
    }

    /// `background_task: true`: the built-in app begins a background task as it enters the
    /// background. An app with background mode needs none; an app of a team's own begins its
    /// own (UIKit's `beginBackgroundTask`).
    mutating func taskOption(_ entry: Entry, background: Bool?, teamBuilt: Bool, sdk: SDKKind?) -> Bool? {
        guard let value = bool(entry.value, "background_task") else { return nil }
        guard value else { return false }
        if sdk?.isAndroid == true {
            report(
                entry.keyNode,
                "background_task: an Android app has no iOS background task (Android freezes it android_freeze_after it is cached)"
            )
            return nil
        }
        if teamBuilt {
            report(
                entry.keyNode,
                "background_task: an app with executable: begins its own background tasks (UIKit's beginBackgroundTask)"
            )
            return nil
        }
        if background == true {
            report(
                entry.keyNode, "background_task: an app with background mode keeps running; it needs no background task"
            )
            return nil
        }
        return true
    }

    /// App names become D-Bus names (`dev.sdlab.App.NAME`): ASCII letters, digits and `_`,
    /// not starting with a digit.
    mutating func appName(_ node: Node) -> String? {
        let expecting = "an app name of letters, digits and '_', not starting with a digit"
        guard let name = text(node, "app name", expecting: expecting) else { return nil }
        guard AppName.isValid(name) else {
            expected("app name", expecting, found: node)
            return nil
        }
        guard !ExpectTarget.reservedNames.contains(name) else {
            report(node, "app name: \(name) is reserved for expectations (hub, all, msal, ws1)")
            return nil
        }
        return name
    }

    /// `executable:`, absolute; from a file, a program that can run.
    mutating func executablePath(_ node: Node) -> String? {
        let folder = folder
        return filePath(node, "executable") { ScenarioPath.problem(runningApp: $0, written: $1, folder: folder) }
    }

    /// `info_plist:`, absolute: an iOS app's Info.plist, which MSAL reads as it starts; from a
    /// file, one MSAL could read.
    mutating func infoPlistPath(_ node: Node, sdk: SDKKind?) -> String? {
        if let sdk, sdk != .msal {
            report(
                node, "info_plist: only MSAL for iOS reads the app's Info.plist here (sdk: msal, not \(sdk.rawValue))")
            return nil
        }
        let folder = folder
        return filePath(node, "info_plist") { ScenarioPath.problem(readingInfoPlist: $0, written: $1, folder: folder) }
    }

    /// A path written under `key`, made absolute from the scenario's folder; read from a file,
    /// `problem` says what is wrong with what it names (nil: nothing), reported at the node.
    mutating func filePath(
        _ node: Node, _ key: String, problem: (_ path: String, _ written: String) -> String?
    ) -> String? {
        guard let written = text(node, key, expecting: "a path") else { return nil }
        guard !written.isEmpty else {
            expected(key, "a path", found: node)
            return nil
        }
        let path = ScenarioPath.absolute(written, in: folder)
        if checksFiles, let problem = problem(path, written) {
            report(node, "\(key): \(problem)")
            return nil
        }
        return path
    }

    static let cleanupExpecting =
        "one of \((CleanupPolicy.names + ["own"]).joined(separator: ", ")), "
        + "{hook: COMMAND, keeps: [KINDS]} or {keeps: [KINDS]}"

    /// `cleanup: NAME`, `{hook: COMMAND, keeps: [KINDS]}`, or `own` / `{keeps: [KINDS]}` for the
    /// cleanup code of an app a team built (`teamBuilt`: it has `executable:`).
    mutating func cleanupPolicy(_ node: Node, teamBuilt: Bool) -> CleanupPolicy? {
        let policy = cleanupDeclaration(node)
        if case .own = policy, !teamBuilt {
            report(
                node,
                "cleanup: the app's own code needs executable: only an app a team built has cleanup code "
                    + "of its own (the built-in app takes a policy or {hook: COMMAND})")
            return nil
        }
        return policy
    }

    mutating func cleanupDeclaration(_ node: Node) -> CleanupPolicy? {
        guard case .mapping(let raw) = node else {
            guard let name = text(node, "cleanup", expecting: Self.cleanupExpecting) else { return nil }
            guard let policy = CleanupPolicy(name: name) else {
                expected("cleanup", Self.cleanupExpecting, found: node)
                return nil
            }
            return policy
        }
        guard !raw.isEmpty else {
            report(node, "cleanup: expected hook, keeps or both")
            return nil
        }
        guard let fields = mapping(node, "cleanup", allowed: ["hook", "keeps"]) else { return nil }
        let keeps = fields["keeps"].map { keptKinds($0.value) } ?? .some([])
        guard let entry = fields["hook"] else { return keeps.map { .own(keeps: $0) } }
        let command = hookCommand(entry.value)
        guard let command, let keeps else { return nil }
        return .hook(command: command, keeps: keeps)
    }

    /// A hook's command with its program path made absolute; from a file, that program must run
    /// (any executable file: a hook is no app, so it need not serve the app interface).
    mutating func hookCommand(_ node: Node) -> String? {
        guard let command = text(node, "hook", expecting: "a command") else { return nil }
        if checksFiles, let (_, written) = ScenarioPath.programPath(of: command),
            let problem = ScenarioPath.problem(
                running: ScenarioPath.absolute(written, in: folder), written: written, folder: folder)
        {
            report(node, "hook: \(problem)")
            return nil
        }
        return ScenarioPath.hookCommand(command, in: folder)
    }

    /// `keeps: [preferences, common]`: what a hook or an app's own code declares it leaves of
    /// another user.
    mutating func keptKinds(_ node: Node) -> Set<RecordKind>? {
        guard let items = list(node, "keeps", of: Self.keepable) else { return nil }
        let kinds = items.map { keptKind($0) }
        return kinds.contains(nil) ? nil : Set(kinds.compactMap { $0 })
    }

    static let keepable = RecordKind.keepable.map(\.rawValue).joined(separator: ", ")

    mutating func keptKind(_ node: Node) -> RecordKind? {
        guard let name = text(node, "keeps", expecting: "one of \(Self.keepable)") else { return nil }
        guard let kind = RecordKind(rawValue: name), RecordKind.keepable.contains(kind) else {
            if RecordKind(rawValue: name)?.isUserData == true {
                report(node, "keeps: \(name) is user data, which a cleanup never keeps (it may keep \(Self.keepable))")
            } else {
                expected("keeps", "one of \(Self.keepable)", found: node)
            }
            return nil
        }
        return kind
    }
}
