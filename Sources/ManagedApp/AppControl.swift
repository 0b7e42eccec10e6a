import DBusKit
import DeviceContract
import FoundationEssentials
import Glibc
import SharedDevice

/// `dev.sdlab.App1` at `/dev/sdlab/App`: how the runner (or anyone) drives an app and reads
/// what it shows and believes. Documented in `Bus/dev.sdlab.App1.xml`. Lifecycle changes that
/// are process signals (suspend, resume, terminate, crash) are not here: the runner sends them.
struct AppControl: Sendable {
    let host: AppHost
    let task: HeldBackgroundTask

    init(_ host: AppHost) {
        self.host = host
        task = HeldBackgroundTask(host)
    }

    var interfaces: [DBusInterface] {
        [
            DBusInterface(
                AppBus.interface,
                methods: [
                    .init(AppBus.Method.foreground.rawValue) { [host, task] _ async throws in
                        task.end()
                        host.withState { $0.foreground = true }
                        host.traceEvent(.foreground)
                        await host.inbox.check(.foreground)
                        return []
                    },
                    .init(AppBus.Method.resumed.rawValue, in: [.init("continued_at", "t")]) { [host] call async in
                        host.traceEvent(.resumed)
                        let continuedAt = call.arguments.first?.uint64 ?? 0
                        let lastCheckBegan = host.withState { $0.lastCheckBegan }
                        if host.configuration.sdk.checksOnResume(
                            continuedAt: continuedAt, lastCheckBegan: lastCheckBegan)
                        {
                            await host.inbox.check(.resume)
                        }
                        return []
                    },
                    .init(AppBus.Method.background.rawValue) { [host, task] _ in
                        host.withState { $0.foreground = false }
                        host.traceEvent(.background)
                        if host.configuration.backgroundTask { task.begin() }
                        return []
                    },
                    .init(AppBus.Method.expireBackgroundTasks.rawValue) { [task] _ in
                        task.expire()
                        return []
                    },
                    .init(
                        AppBus.Method.write.rawValue, in: [.init("kind", "s"), .init("count", "u")],
                        out: [.init("canaries", "as")]
                    ) { [host] call async throws in
                        let request = try WriteRequest(wire: call.arguments)
                        let canaries = try await host.inbox.perform {
                            try await host.write(request.kind, count: request.count)
                        }
                        return [.strings(CanaryRuns.items(of: canaries.map(\.description)))]
                    },
                    .init(AppBus.Method.signIn.rawValue, in: [.init("user", "s"), .init("password", "s")]) {
                        [host] call async throws in
                        let (user, password) = (call.arguments[0].string!, call.arguments[1].string!)
                        try await host.inbox.perform { try await host.signIn(user, password) }
                        await host.inbox.check(.signIn)
                        return []
                    },
                    .init(AppBus.Method.signOut.rawValue) { [host] _ async throws in
                        try await host.inbox.perform { try await host.signOut() }
                        await host.inbox.check(.signOut)
                        return []
                    },
                    .init(AppBus.Method.unlock.rawValue, in: [.init("user", "s"), .init("password", "s")]) {
                        [host] call async throws in
                        let (user, password) = (call.arguments[0].string!, call.arguments[1].string!)
                        try await host.connection.callHub(
                            HubMethod.unlock, [.string(user), .string(password)], at: host.configuration.hub,
                            timeout: host.configuration.hubTimeout)
                        return []
                    },
                    .init(AppBus.Method.settle.rawValue) { [host] _ async in
                        await host.inbox.settled()
                        return []
                    },
                    .init(AppBus.Method.snapshot.rawValue, out: [.init("snapshot", "a{sv}")]) { [host] _ async in
                        [host.snapshot().wireValue]
                    },
                ],
                properties: [
                    .init(AppBus.Property.name.rawValue, "s") { [host] in .string(host.configuration.name) },
                    .init(AppBus.Property.sdk.rawValue, "s") { [host] in .string(host.configuration.sdk.rawValue) },
                    .init(AppBus.Property.backgroundMode.rawValue, "b") { [host] in
                        .bool(host.configuration.backgroundMode)
                    },
                    .init(AppBus.Property.cleanup.rawValue, "s") { [host] in .string(host.configuration.policy.name) },
                ],
                signals: [AppBus.backgroundTasksDeclaration])
        ]
    }
}

extension AppHost {
    func write(_ kind: RecordKind, count: Int) async throws -> [Canary] {
        let (user, blocked) = withState { ($0.model.user, $0.blocked) }
        if blocked { throw AppError.blocked.dbusError }
        guard let user else { throw AppError.noUser.dbusError }
        var keys = Container.Keys()
        if kind == .sensitive { keys.data = try dataKey() }
        if kind == .external { keys.external = try await externalKey() }
        let canaries = try container.write(kind, count: count, user: user, keys: keys)
        traceEvent(.wrote, [.kind: .string(kind.rawValue), .count: .int(Int64(count)), .user: .string(user)])
        return canaries
    }

    func signIn(_ user: String, _ password: String) async throws {
        let account = try await sdk.signIn(user: user, password: password)
        traceEvent(.signedIn, [.user: .string(account.username)])
        await changedHere(to: account.username, reason: .signIn)
    }

    func signOut() async throws {
        try await sdk.signOut()
        traceEvent(.signedOut)
        await changedHere(to: nil, reason: .signOut)
    }

    /// What the app shows and believes: the runner's expectations read this.
    func snapshot() -> AppSnapshot {
        let state = withState { $0 }
        let keys = heldKeys
        var snapshot = AppSnapshot()
        snapshot.name = configuration.name
        snapshot.sdk = configuration.sdk.rawValue
        snapshot.pid = getpid()
        snapshot.foreground = state.foreground
        snapshot.blocked = state.blocked
        snapshot.user = state.model.user
        snapshot.previous = state.previous
        snapshot.callbacks = state.callbacks
        snapshot.error = state.lastError
        // A blocked UI shows nothing.
        snapshot.displayed =
            state.blocked
            ? []
            : state.model.user.map { user in
                container.readable(with: keys).filter { $0.user == user && $0.kind != .common }.map(\.description)
            } ?? []
        snapshot.preferencesApplied = state.model.preferencesApplied
        snapshot.checks = state.checks
        snapshot.cleanupFailures = state.cleanupFailures
        return snapshot
    }
}
