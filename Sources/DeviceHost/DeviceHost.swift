import AppCommandLine
import ArgumentParser
import CoreFoundation
import DBusKit
import DeviceContract
import DeviceProcesses
import FacadeCore
import Foundation
import Glibc
import SharedDevice
import Synchronization

/// Runs an app in a device, a team's or the built-in one (`sdlab-app`) alike: the same options,
/// bus contract and trace, so every step, expectation, report and bench works for it. The host
/// runs the main queue and main run loop, drives the app's lifecycle from the scenario's steps,
/// and hands it the scenario's records. Two steps: `prepare()` before any of the app's code
/// (options, sandbox, bus), then `run` with the app. UIKit's `@main` does both for an app
/// delegate; an app without one calls `DeviceHost.main(app:)`.
public final class DeviceHost: Sendable {
    let app: HostedApp
    let connection: Connection
    let hub: HubAddress
    let hubTimeout: Duration
    /// The app's objects: touched on the main queue only.
    private let parts = Mutex(AppValue<Parts>(Parts()))

    struct Parts {
        var lifecycle: AppLifecycleReceiver?
        var deviceApp: DeviceLabApp?
    }

    private init(app: HostedApp, connection: Connection, hub: HubAddress, hubTimeout: Duration) {
        self.app = app
        self.connection = connection
        self.hub = hub
        self.hubTimeout = hubTimeout
    }

    /// Reads the command line the runner starts apps with, puts the app's data in its
    /// container, joins the device's bus and installs the link the facades use. On failure it
    /// says what to start and exits 3.
    public static func prepare(arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> DeviceHost {
        prepare(arguments: arguments, cleanups: .own)
    }

    /// `prepare` for an app whose cleanups are of `support`'s kind.
    @_spi(BuiltIn) public static func prepare(
        arguments: [String] = Array(CommandLine.arguments.dropFirst()), cleanups support: CleanupSupport
    ) -> DeviceHost {
        TerminationSignals.install()
        let options = AppProgram.options(from: arguments)
        if let refusal = support.refusal(of: options.policy) { cannotStart(options.name, refusal) }
        guard let address = options.bus ?? ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] else {
            cannotStart(options.name, "no device bus: " + whatToStart)
        }
        let sandbox = Sandbox(root: options.container)
        do {
            try sandbox.enter()
        } catch {
            cannotStart(options.name, "its sandbox: \(error)")
        }
        // The main thread owns the connection (BusMainLoop), unless the run loop is asked for.
        let owner: Connection.Owner = BusMainLoop.runLoopRequested ? .ownThread : .callingThread
        let connection: Connection
        do {
            connection = try Connection.connect(to: address, owner: owner)
        } catch {
            cannotStart(options.name, "cannot reach the device bus at \(address) (\(error)): " + whatToStart)
        }
        let trace: TraceLog?
        do {
            trace = try options.trace.map { try TraceLog(path: $0, process: options.name) }
        } catch {
            cannotStart(options.name, "\(error)")
        }
        HostedBackgroundTasks.shared.attach(trace: trace, connection: connection)
        HostedBackgroundTasks.shared.give(options.backgroundMode ? nil : options.backgroundTime)
        let app = HostedApp(
            options: options, support: support, sandbox: sandbox, trace: trace, schedule: connection.schedule(after:_:))
        let hub = HubAddress(nameFile: options.hubNameFile)
        let appInfo: AppInfo?
        do {
            appInfo = try options.infoPlist.map(InfoPlist.read)
        } catch {
            cannotStart(options.name, "its Info.plist \(options.infoPlist ?? ""): \(error)")
        }
        DeviceLink.install(
            DeviceLink(
                connection: connection, hub: hub, hubTimeout: .seconds(5), appName: options.name,
                keychainFolder: sandbox.keychain, appInfo: appInfo, listener: app))
        return DeviceHost(
            app: app, connection: connection, hub: hub, hubTimeout: .seconds(5))
    }

    static let whatToStart =
        "this app runs inside a SharedDeviceLab device. Run a scenario that declares it"
        + " (`sdlab run FILE`, with `executable:` naming this program), or start a device"
        + " (`sdlab device up`) and pass --bus with the address it prints."

    /// For an app without an app delegate: prepares, then runs `app`.
    public static func main(app: DeviceLabApp?) -> Never {
        prepare().run(lifecycle: nil, app: app)
    }

    /// Joins the device, launches the app, and serves the scenario's steps until SIGTERM (the
    /// app's `willTerminate` runs, then its work in hand finishes) or until the bus goes away.
    public func run(lifecycle: AppLifecycleReceiver?, app deviceApp: DeviceLabApp?) -> Never {
        start(Parts(lifecycle: lifecycle ?? NotificationsOnly(), deviceApp: deviceApp))
    }

    /// Runs the built-in app, which is its own lifecycle receiver and hears each check's result.
    @_spi(BuiltIn) public func run(builtIn: some BuiltInDeviceLabApp & AppLifecycleReceiver) -> Never {
        app.builtIn = AppValue(builtIn)
        start(Parts(lifecycle: builtIn, deviceApp: builtIn))
    }

    /// The app's parts in place, serves it on this thread, the bus connection's owner.
    private func start(_ parts: Parts) -> Never {
        self.parts.withLock { $0 = AppValue(parts) }
        Task(executorPreference: connection) { await self.serve() }
        guard connection.isServedByCurrentThread else { BusMainLoop.runRunLoop() }
        BusMainLoop(connection: connection).run()
    }

    private func serve() async {
        app.trace?.record(
            .launched,
            fields: [
                (.sdk, .string(app.sdk.rawValue)), (.pid, .int(Int64(getpid()))),
                (.backgroundMode, .bool(app.backgroundMode)), (.fence, .string(WriteFenceState.told())),
            ] + HostedApp.fields(of: app.cleanup))
        do {
            try connection.export([HostControl(host: self).interface], at: AppBus.path)
            guard try await connection.requestName(AppBus.name(of: app.name)) == .primaryOwner else {
                Self.cannotStart(app.name, "another process already owns \(AppBus.name(of: app.name))")
            }
        } catch {
            Self.cannotStart(app.name, "\(error)")
        }
        await launch()
        app.trace?.record(.ready)
        AppOptions.sayReady(on: app.options.readyDescriptor)
        let terminated = await firstOf(
            [
                { @Sendable in
                    _ = await TerminationSignals.next()
                    return true
                },
                { @Sendable [connection] in
                    await connection.closed()
                    return false
                },
            ], on: connection)
        if terminated {
            await lifecycle { $0.willTerminate() }
            await settled()
        }
        app.trace?.record(.terminated)
        app.trace?.close()
        UserDefaults.standard.synchronize()
        exit(0)
    }

    @_spi(BuiltIn) public static func cannotStart(_ name: String, _ why: String) -> Never {
        writeAll("the app \(name) cannot start: \(why)\n".utf8, to: STDERR_FILENO)
        exit(ExitCodes.environment)
    }

    // MARK: - The lifecycle, on the main queue

    /// Whether Android caches this app in the background and holds its broadcasts there.
    private var cachedInTheBackground: Bool { app.sdk.isCachedInTheBackground(backgroundMode: app.backgroundMode) }

    /// The app leaves Android's cached state: what was held for it is delivered, and its
    /// receivers have run, before anything else happens to it. Nothing for an app never cached.
    private func leaveCache() async {
        if DeviceLink.current?.cached.leave() ?? 0 > 0 { await onMain {} }
    }

    private func launch() async {
        app.withState { $0.checks.opportunity = .launch }
        await lifecycle { $0.didFinishLaunching() }
        await lifecycle { $0.didBecomeActive() }
        app.appCodeReturned(afterCheck: false)
        await settled()
    }

    func foreground() async {
        await leaveCache()
        app.withState {
            $0.checks.opportunity = .foreground
            $0.foreground = true
        }
        app.trace?.record(.foreground)
        HostedBackgroundTasks.shared.suspensionCalledOff()
        await lifecycle { $0.willEnterForeground() }
        await lifecycle { $0.didBecomeActive() }
        app.appCodeReturned(afterCheck: false)
        await settled()
    }

    func background() async {
        if cachedInTheBackground { DeviceLink.current?.cached.enter() }
        app.withState { $0.foreground = false }
        app.trace?.record(.background)
        // The device counts the app's background time from now (`backgroundTimeRemaining`).
        HostedBackgroundTasks.shared.enteredBackground()
        await lifecycle { $0.willResignActive() }
        await lifecycle { $0.didEnterBackground() }
        // What the app queued on the main queue meanwhile has run before the answer: a background
        // task it begins there is told to the runner before it decides when to suspend the app.
        await onMain {}
        app.appCodeReturned(afterCheck: false)
    }

    /// The runner continued the app: it runs in the background for its background time again. A
    /// team's app decides itself what it does (iOS calls no delegate method); the built-in app
    /// checks as its SDK does when resumed.
    func resumed(continuedAt: UInt64) async {
        app.trace?.record(.resumed)
        // Android woke it for an event: what it held is delivered, and the app is cached again.
        if cachedInTheBackground {
            await leaveCache()
            DeviceLink.current?.cached.enter()
        }
        // Woken in the background: its background time starts again (none with background mode).
        HostedBackgroundTasks.shared.enteredBackground()
        let builtIn = app.builtIn
        guard builtIn.value != nil else { return }
        let lastCheckBegan = app.withState { $0.checks.lastBegan }
        let tell: @Sendable () -> Void = {
            MainActor.assumeIsolated {
                builtIn.value?.resumed(continuedAt: continuedAt, lastCheckBegan: lastCheckBegan)
            }
        }
        await onMain(tell)
        await settled()
    }

    /// The app's background time is up: the expiration handlers of its open background tasks
    /// run on the main queue, oldest first, as iOS calls them; returns, once they and what they
    /// queued there have run, how many tasks are still open.
    func expireBackgroundTasks() async -> Int {
        let handlers = HostedBackgroundTasks.shared.expirationHandlers()
        guard !handlers.isEmpty else { return 0 }
        let all = AppValue(handlers)
        await onMain { for handler in all.value { handler.value?() } }
        app.appCodeReturned(afterCheck: false)
        await onMain {}
        return HostedBackgroundTasks.shared.count
    }

    /// Calls the app's lifecycle receiver on the main queue and waits for it.
    private func lifecycle(_ body: @escaping (AppLifecycleReceiver) -> Void) async {
        let call = AppValue(body)
        await onMain { [self] in
            if let receiver = parts.withLock({ $0.value.lifecycle }) { call.value(receiver) }
        }
    }

    /// Runs `body` on the main queue and returns its result.
    func onMain<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.main.async { continuation.resume(with: Result { try body() }) }
        }
    }

    func onMain(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { continuation in
            DispatchQueue.main.async {
                body()
                continuation.resume()
            }
        }
    }

    /// Waits until the app's work in hand is done: no check in flight, every completion it led
    /// to returned, and the main queue drained; at most `settleBound`. Woken by the app's state,
    /// never by polling: a fleet that settles after every post would spend its time polling.
    func settled() async {
        let deadline = ContinuousClock.now + Self.settleBound
        repeat {
            await onMain {}
            if app.isSettled { return }
            await app.untilSettled(within: deadline - .now)
        } while ContinuousClock.now < deadline
    }

    static let settleBound = Duration.seconds(15)

    // MARK: - What the runner asks

    /// Hands the app the next records of its user, once the work in hand (a check a post
    /// started, say) is done: an app serves requests after its pending checks.
    func write(_ kind: RecordKind, count: Int) async throws -> [String] {
        await settled()
        let records = try app.records(kind, count: count)
        app.save()
        let (deviceApp, builtIn) = (parts.withLock { AppValue($0.value.deviceApp) }, app.builtIn)
        guard deviceApp.value != nil else {
            throw DBusError.failed("the app takes no records: it is not a DeviceLabApp (Docs/your-app.md)")
        }
        if builtIn.value != nil {
            let user = records[0].user
            try await Task { @MainActor in try await builtIn.value?.prepareToStore(kind, of: user) }.value
        }
        let batch = records
        do {
            try await onMain {
                try deviceApp.value?.store(batch)
                // One defaults domain per app, as on iOS. Linux's Foundation keeps the domain of
                // `UserDefaults.standard` (and of every object without a suite) apart from the
                // same domain named by the bundle's identifier until it is written out: removing
                // it by name (`removePersistentDomain(forName:)`, as public helpers clean up)
                // would miss the records until then. Written now, the two agree.
                guard UserDefaults.standard.synchronize() else { throw DefaultsNotWritten() }
            }
        } catch {
            throw DBusError.failed("the app could not store the records: \(error)")
        }
        app.appCodeReturned(afterCheck: false)
        app.trace?.record(
            .wrote, [.kind: .string(kind.rawValue), .count: .int(Int64(count)), .user: .string(records[0].user)])
        return records.map(\.canary)
    }

    /// The app's defaults domain could not be written out to its container.
    struct DefaultsNotWritten: Error, CustomStringConvertible {
        var description: String { "its defaults could not be written to Library/Preferences" }
    }

    func signIn(user: String, password: String) async throws {
        app.withState {
            $0.credentials = (user, password)
            $0.checks.opportunity = .signIn
        }
        defer { app.withState { $0.credentials = nil } }
        try await appAction(done: (.signedIn, [.user: .string(user)])) { $0.signIn(completion: $1) }
        await settled()
    }

    func signOut() async throws {
        app.withState { $0.checks.opportunity = .signOut }
        try await appAction(done: (.signedOut, [:])) { $0.signOut(completion: $1) }
        await settled()
    }

    /// Calls the app's own sign-in or sign-out on the main queue and waits for its completion;
    /// `done` is traced as it completes without an error, before the app's code goes on.
    private func appAction(
        done: (TraceName, KeyValuePairs<TraceField, TraceValue>),
        _ action: @escaping (DeviceLabApp, @escaping (Error?) -> Void) -> Void
    ) async throws {
        let call = AppValue(action)
        let deviceApp = parts.withLock { AppValue($0.value.deviceApp) }
        let trace = app.trace
        let outcome: Result<Void, any Error> = await withCheckedContinuation { continuation in
            DispatchQueue.main.async {
                guard let target = deviceApp.value else {
                    return continuation.resume(returning: .failure(DeviceHostError.notOffered("app")))
                }
                call.value(target) { error in
                    if error == nil { trace?.record(done.0, done.1) }
                    continuation.resume(returning: error.map { .failure($0) } ?? .success(()))
                }
            }
        }
        if case .failure(let error) = outcome { throw Self.busError(error) }
    }

    /// The error a sign-in or sign-out answers on the bus: the device's or the SDK's refusal
    /// by its name, wherever the app's SDK put it; anything else as `Failed`.
    static func busError(_ error: any Error) -> DBusError {
        switch error {
        case let error as DBusError: error
        case let error as DeviceHostError: DBusError(name: DeviceError.notSupported.dbusError.name, message: "\(error)")
        case let error as NSError where error.userInfo[NSUnderlyingErrorKey] is any Error:
            busError(error.userInfo[NSUnderlyingErrorKey] as! any Error)
        default:
            switch (error as? DeviceFailure)?.reason {
            case .refused(let error, let message): DBusError(name: error.dbusError.name, message: message)
            case .invalid(let name, let message): .device(name, message)
            default: DBusError.failed("\(error)")
            }
        }
    }

    /// What the app shows and believes: the runner's expectations read this.
    func snapshot() async -> AppSnapshot {
        let deviceApp = parts.withLock { AppValue($0.value.deviceApp) }
        let displayed = await withCheckedContinuation { continuation in
            DispatchQueue.main.async { continuation.resume(returning: deviceApp.value?.displayedRecords() ?? []) }
        }
        let state = app.withState { $0 }
        var snapshot = AppSnapshot()
        snapshot.name = app.name
        snapshot.sdk = app.sdk.rawValue
        snapshot.pid = getpid()
        snapshot.foreground = state.foreground
        snapshot.blocked = state.blocked
        snapshot.user = state.user
        snapshot.previous = state.previous
        snapshot.callbacks = state.callbacks.map(\.description)
        snapshot.error = state.lastError
        snapshot.displayed = state.blocked ? [] : displayed.flatMap { Canary.all(in: $0[...]).map(\.description) }
        snapshot.preferencesApplied = state.preferencesApplied
        snapshot.checks = state.checks.began
        snapshot.cleanupFailures = state.cleanupFailures
        return snapshot
    }
}
