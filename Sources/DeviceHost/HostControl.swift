import DBusKit
import DeviceContract
import Foundation
import Glibc
import SharedDevice

/// `dev.sdlab.App1` for a team's app: the same members as `sdlab-app` serves
/// (`Bus/dev.sdlab.App1.xml`), carried out by driving the app's own code on its main queue.
struct HostControl: Sendable {
    let host: DeviceHost

    var interface: DBusInterface {
        DBusInterface(
            AppBus.interface,
            methods: [
                .init(AppBus.Method.foreground.rawValue) { [host] _ async in
                    await host.foreground()
                    return []
                },
                .init(AppBus.Method.resumed.rawValue, in: [.init("continued_at", "t")]) { [host] call async in
                    await host.resumed(continuedAt: call.arguments.first?.uint64 ?? 0)
                    return []
                },
                .init(AppBus.Method.background.rawValue) { [host] _ async in
                    await host.background()
                    return []
                },
                .init(AppBus.Method.expireBackgroundTasks.rawValue, out: [.init("still_open", "u")]) { [host] _ async in
                    [.uint32(UInt32(clamping: await host.expireBackgroundTasks()))]
                },
                .init(
                    AppBus.Method.write.rawValue, in: [.init("kind", "s"), .init("count", "u")],
                    out: [.init("canaries", "as")]
                ) { [host] call async throws in
                    let request = try WriteRequest(wire: call.arguments)
                    let canaries = try await host.write(request.kind, count: request.count)
                    return [.strings(CanaryRuns.items(of: canaries))]
                },
                .init(AppBus.Method.signIn.rawValue, in: [.init("user", "s"), .init("password", "s")]) {
                    [host] call async throws in
                    try await host.signIn(
                        user: call.arguments[0].string ?? "", password: call.arguments[1].string ?? "")
                    return []
                },
                .init(AppBus.Method.signOut.rawValue) { [host] _ async throws in
                    try await host.signOut()
                    return []
                },
                .init(AppBus.Method.unlock.rawValue, in: [.init("user", "s"), .init("password", "s")]) {
                    [host] call async throws in
                    try await host.connection.callHub(
                        HubMethod.unlock, [call.arguments[0], call.arguments[1]], at: host.hub,
                        timeout: host.hubTimeout)
                    return []
                },
                .init(AppBus.Method.settle.rawValue) { [host] _ async in
                    await host.settled()
                    return []
                },
                .init(AppBus.Method.snapshot.rawValue, out: [.init("snapshot", "a{sv}")]) { [host] _ async in
                    [await host.snapshot().wireValue]
                },
            ],
            properties: [
                .init(AppBus.Property.name.rawValue, "s") { [host] in .string(host.app.name) },
                .init(AppBus.Property.sdk.rawValue, "s") { [host] in .string(host.app.sdk.rawValue) },
                .init(AppBus.Property.backgroundMode.rawValue, "b") { [host] in .bool(host.app.backgroundMode) },
                .init(AppBus.Property.cleanup.rawValue, "s") { [host] in .string(host.app.cleanup.name) },
            ],
            signals: [AppBus.backgroundTasksDeclaration])
    }
}
