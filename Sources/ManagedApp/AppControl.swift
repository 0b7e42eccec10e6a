import DBusKit
import Foundation
import Hub
import SharedDevice

/// `dev.sdlab.App1` at `/dev/sdlab/App`: how the runner (or anyone) drives an app and reads
/// what it shows and believes. Documented in `Bus/dev.sdlab.App1.xml`. Lifecycle changes that
/// are process signals (suspend, resume, terminate, crash) are not here: the runner sends them.
struct AppControl: Sendable {
    let host: AppHost

    init(_ host: AppHost) { self.host = host }

    /// At most this many records per `Write`.
    static let maxRecordsPerWrite: UInt32 = 100_000

    var interfaces: [DBusInterface] {
        [DBusInterface(AppBus.interface, methods: [
            .init("Foreground") { [host] _ async throws in
                host.withState { $0.foreground = true }
                host.traceEvent("foreground")
                await host.inbox.check(.foreground)
                return []
            },
            .init("Resumed") { [host] _ async in
                host.traceEvent("resumed")
                if host.configuration.sdk.listensToPosts { await host.inbox.check(.poll) }
                return []
            },
            .init("Background") { [host] _ in
                host.withState { $0.foreground = false }
                host.traceEvent("background")
                return []
            },
            .init("Write", in: [.init("kind", "s"), .init("count", "u")], out: [.init("canaries", "as")]) { [host] call async throws in
                guard let kind = call.arguments[0].string.flatMap(RecordKind.init(rawValue:)) else {
                    throw DBusError.invalidArgs("kind is one of \(RecordKind.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                let count = call.arguments[1].uint32!
                guard (1...Self.maxRecordsPerWrite).contains(count) else {
                    throw DBusError.invalidArgs("count is 1 to \(Self.maxRecordsPerWrite)")
                }
                return [.strings(try await host.inbox.perform { try await host.write(kind, count: Int(count)) }.map(\.description))]
            },
            .init("SignIn", in: [.init("user", "s"), .init("password", "s")]) { [host] call async throws in
                let (user, password) = (call.arguments[0].string!, call.arguments[1].string!)
                try await host.inbox.perform { try await host.signIn(user, password) }
                await host.inbox.check(.signIn)
                return []
            },
            .init("SignOut") { [host] _ async throws in
                try await host.inbox.perform { try await host.signOut() }
                await host.inbox.check(.signOut)
                return []
            },
            .init("Unlock", in: [.init("user", "s"), .init("password", "s")]) { [host] call async throws in
                let (user, password) = (call.arguments[0].string!, call.arguments[1].string!)
                try await host.connection.callHub(DeviceBus.hubInterface, "Unlock", [.string(user), .string(password)],
                                                  timeout: host.configuration.hubTimeout)
                return []
            },
            .init("Settle") { [host] _ async in
                await host.inbox.settled()
                return []
            },
            .init("Snapshot", out: [.init("snapshot", "a{sv}")]) { [host] _ async in
                [host.snapshot()]
            },
        ], properties: [
            .init("Name", "s") { [host] in .string(host.configuration.name) },
            .init("SDK", "s") { [host] in .string(host.configuration.sdk.rawValue) },
            .init("BackgroundMode", "b") { [host] in .bool(host.configuration.backgroundMode) },
            .init("Cleanup", "s") { [host] in .string(host.configuration.policy.name) },
        ])]
    }
}

extension AppHost {
    static let noUser = DBusError(name: "dev.sdlab.Error.NoUser", message: "the app has no current user")
    static let blocked = DBusError(name: "dev.sdlab.Error.Blocked", message: "the app's UI is blocked until it is launched again")
    static let notMSAL = DBusError(name: "dev.sdlab.Error.NotSupported", message: "only MSAL apps sign in and out")

    func write(_ kind: RecordKind, count: Int) async throws -> [Canary] {
        let (user, blocked) = withState { ($0.model.user, $0.blocked) }
        if blocked { throw Self.blocked }
        guard let user else { throw Self.noUser }
        var keys = Container.Keys()
        if kind == .sensitive { keys.data = try await dataKey() }
        if kind == .external { keys.external = try await externalKey() }
        let canaries = try container.write(kind, count: count, user: user, keys: keys)
        traceEvent("wrote", ["kind": .string(kind.rawValue), "count": .int(Int64(count)), "user": .string(user)])
        return canaries
    }

    func signIn(_ user: String, _ password: String) async throws {
        let account: BrokerAccount
        switch sdk {
        case .msal(let msal): account = try await msal.signIn(user: user, password: password)
        case .android(let android): account = try await android.signIn(user: user, password: password)
        case .ws1: throw Self.notMSAL
        }
        traceEvent("signed-in", ["user": .string(account.username)])
        await changedHere(to: account.username, reason: .signIn)
    }

    func signOut() async throws {
        switch sdk {
        case .msal(let msal): try await msal.signOut()
        case .android(let android): try await android.signOut()
        case .ws1: throw Self.notMSAL
        }
        traceEvent("signed-out")
        await changedHere(to: nil, reason: .signOut)
    }

    /// What the app shows and believes: the runner's expectations read this.
    func snapshot() -> DBusValue {
        let state = withState { $0 }
        let keys = heldKeys
        // A blocked UI shows nothing.
        let shown = state.blocked ? [] : state.model.user.map { user in
            container.readable(with: keys).filter { $0.user == user && $0.kind != .common }
        } ?? []
        return .vardict([
            "name": .string(configuration.name),
            "sdk": .string(configuration.sdk.rawValue),
            "pid": .int32(getpid()),
            "foreground": .bool(state.foreground),
            "blocked": .bool(state.blocked),
            "user": .string(state.model.user ?? ""),
            "previous": .string(state.previous ?? ""),
            "callbacks": .strings(state.callbacks),
            "error": .string(state.lastError ?? ""),
            "displayed": .strings(shown.map(\.description)),
            "preferencesApplied": .bool(state.model.preferencesApplied),
            "checks": .uint32(UInt32(clamping: state.checks)),
            "cleanupFailures": .strings(state.cleanupFailures),
        ])
    }
}
