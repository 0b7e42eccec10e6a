import DeviceContract
@_spi(BuiltIn) import DeviceHost
import FacadeCore
import Foundation
import SDKClients
import SharedDevice
import UIKit

/// The built-in app (`sdlab-app`): an app like a team's, written on the SDK facades and run by
/// the same host. Its cleanup is a declared policy or hook (Docs/behaviour.md §8), carried out
/// by its own code; the host judges it by the bytes, as it judges a team's.
public enum BuiltInApp {
    /// Prepares the device, then runs the app until it is terminated.
    @MainActor
    public static func main() -> Never {
        let host = DeviceHost.prepare(cleanups: .builtIn)
        let app: BuiltInAppProcess
        do {
            app = try BuiltInAppProcess(host: host)
        } catch {
            DeviceHost.cannotStart(host.options.name, "\(error)")
        }
        host.run(builtIn: app)
    }
}

/// The app itself: its lifecycle, the records it is handed, what it shows, and its reaction
/// to each check. Everything runs on the main queue, as an iOS app's code does.
@MainActor
final class BuiltInAppProcess: @preconcurrency AppLifecycleReceiver, @preconcurrency BuiltInDeviceLabApp {
    private let host: DeviceHost
    private let options: AppOptions
    private let container: Container
    private let cleanups: BuiltInCleanups
    private let keys: ExternalKeys
    private let flavour: any SDKFlavour
    private var gate: CheckGate!
    private var backgroundTask = UIBackgroundTaskIdentifier.invalid

    init(host: DeviceHost) throws {
        self.host = host
        options = host.options
        container = try Container(root: options.container, app: options.name)
        flavour = try sdkFlavour(options.sdk, clientID: options.name, container: container)
        let cleaner = Cleaner(
            container: container, dataKey: flavour.dataKey, hookTimeout: options.hookTimeout,
            hookDirectory: options.hookDirectory)
        cleanups = BuiltInCleanups(host: host, container: container, cleaner: cleaner, policy: options.policy)
        keys = ExternalKeys(host: host)
        cleanups.forgetsExternalKey = { [keys] in keys.forget() }
        gate = CheckGate { [unowned self] trigger in
            host.checkBecause(trigger)
            flavour.check()
        }
    }

    // MARK: - The lifecycle

    /// A cleanup cut short by a crash is finished first; then the SDK starts and checks.
    func didFinishLaunching() {
        post(AppLifecycleNames.didFinishLaunching)
        host.appWork { [self] in
            await cleanups.resumeUnfinished()
            flavour.start { [weak self] in self?.gate.request(.signal) }
            gate.request(.launch)
        }
    }

    func willEnterForeground() {
        endBackgroundTask()
        post(AppLifecycleNames.willEnterForeground)
        gate.request(.foreground)
    }

    func didBecomeActive() { post(AppLifecycleNames.didBecomeActive) }
    func willResignActive() { post(AppLifecycleNames.willResignActive) }

    /// With `--background-task`, the app holds a task as an app that syncs in the background
    /// does, until its expiration handler runs or it returns to the foreground.
    func didEnterBackground() {
        post(AppLifecycleNames.didEnterBackground)
        guard options.backgroundTask, backgroundTask == .invalid else { return }
        backgroundTask = UIApplication.shared.beginBackgroundTask(withName: "sync") { [weak self] in
            MainActor.assumeIsolated { self?.endBackgroundTask() }
        }
    }

    func willTerminate() { post(AppLifecycleNames.willTerminate) }

    private func endBackgroundTask() {
        guard backgroundTask != .invalid else { return }
        UIApplication.shared.endBackgroundTask(backgroundTask)
        backgroundTask = .invalid
    }

    /// The notifications UIKit posts, which the Workspace ONE SDK follows.
    private func post(_ name: Notification.Name) { NotificationCenter.default.post(name: name, object: nil) }

    // MARK: - What the host tells the app

    func checkEnded(_ result: CheckResult?) {
        gate.answered()
        host.appWork { [self] in
            await cleanups.checkEnded(result)
            if result?.looked == true { await keys.fetchIfNeeded(for: cleanups.model.user, in: container) }
            gate.acted()
        }
    }

    func resumed(continuedAt: UInt64, lastCheckBegan: UInt64) {
        if options.sdk.checksOnResume(continuedAt: continuedAt, lastCheckBegan: lastCheckBegan) {
            gate.request(.resume)
        }
    }

    func prepareToStore(_ kind: RecordKind, of user: String) async throws {
        if kind == .external { _ = try await keys.key(for: user) }
    }

    // MARK: - Records, sign-in and sign-out

    func store(_ records: [DeviceRecord]) throws {
        guard let first = records.first, let kind = RecordKind(rawValue: first.kind) else { return }
        var held = Container.Keys()
        if kind == .sensitive { held.data = try flavour.dataKey.keychain.key(flavour.dataKey.name) }
        if kind == .external { held.external = keys.held(for: first.user) }
        try container.store(records.flatMap { Canary.all(in: $0.canary[...]) }, keys: held)
    }

    func displayedRecords() -> [String] {
        guard let user = cleanups.model.user else { return [] }
        let held = Container.Keys(
            data: flavour.dataKey.keychain.existingKey(flavour.dataKey.name), external: keys.held(for: user))
        return container.readable(with: held).filter { $0.user == user && $0.kind != .common }.map(\.description)
    }

    func signIn(completion: @escaping ((any Error)?) -> Void) {
        gate.hold()
        flavour.signIn { [self] user, error in
            MainActor.assumeIsolated { ended(error, changingTo: user, reason: .signIn, completion) }
        }
    }

    func signOut(completion: @escaping ((any Error)?) -> Void) {
        gate.hold()
        flavour.signOut { [self] error in
            MainActor.assumeIsolated { ended(error, changingTo: nil, reason: .signOut, completion) }
        }
    }

    /// The app's own sign-in or sign-out ended: when it changed the user, the app cleans up as
    /// the model says, then checks, in one check with the requests made meanwhile.
    private func ended(
        _ error: (any Error)?, changingTo user: String?, reason: CheckTrigger,
        _ completion: @escaping ((any Error)?) -> Void
    ) {
        completion(error)
        guard error == nil else { return gate.release() }
        host.appWork { [self] in
            await cleanups.changedHere(to: user, reason: reason)
            gate.request(reason)
            gate.release()
        }
    }
}
