import DeviceContract
import Scenario
import SharedDevice

// Lifecycle steps: the fleet's effects carried out on the apps' processes, and stopping them all.

extension StepDriver {
    /// Carries out the fleet's effects of one lifecycle action, app by app.
    func lifecycle(_ action: AppLifecycle.Action, _ name: String) async throws {
        let effects: [(app: String, effect: AppLifecycle.Effect)]
        do {
            effects = try fleet.apply(action, to: name, at: now)
        } catch {
            throw StepError(description: "\(action.rawValue) \(name): the app is not running")
        }
        for (app, effect) in effects { try await carryOut(effect, on: app) }
        // What the apps said as they went (a background task begun in
        // applicationDidEnterBackground), and a suspension due at once (a grace of 0s).
        try await keepTime()
    }

    /// Where the worker checks in or out: in the Hub app, which takes the front first (the app
    /// in front goes to the background); from the console, nothing moves.
    func open(_ origin: StepKind.Origin) async throws {
        guard origin == .hub else { return }
        for (app, effect) in fleet.hubTakesFront(at: now) { try await carryOut(effect, on: app) }
        try await keepTime()
    }

    func carryOut(_ effect: AppLifecycle.Effect, on name: String) async throws {
        switch effect {
        case .spawn:
            try await spawn(name)
        case .stop:
            frozen[name] = try await client(name).snapshot()
            try running[name]?.suspend()
        case .continue:
            continuedAt[name] = TraceLog.now()
            running[name]?.resume()
            frozen[name] = nil
        case .terminate:
            let app = running.removeValue(forKey: name)
            app?.terminate()
            ended[name] = app?.busName
            frozen[name] = nil
        case .kill:
            let app = running.removeValue(forKey: name)
            app?.crash()
            ended[name] = app?.busName
            frozen[name] = nil
        case .toldForeground: try await client(name).foreground()
        case .toldBackground: try await client(name).background()
        case .toldResumed: try await client(name).resumed(continuedAt: continuedAt[name] ?? 0)
        case .toldTasksExpire:
            // Handlers that do not return in time ended no task.
            let stillOpen = try? await client(name, timeout: Self.expirationBound).expireBackgroundTasks()
            let next = fleet.expirationHandlersReturned(stillOpen: stillOpen, of: name)
            if next.contains(where: { $0.effect == .kill }) {
                notices.append(
                    "\(name)'s background task outlived its expiration handler: iOS ends such an app, and it ran no more"
                        + " code (\(Self.stillOpen(stillOpen)))"
                )
            }
            for (app, effect) in next { try await carryOut(effect, on: app) }
        }
    }

    /// Why an app was ended at the end of its background time, in words.
    static func stillOpen(_ count: Int?) -> String {
        guard let count else { return "its handlers did not return within \(expirationBound)" }
        return count == 1 ? "1 task still open" : "\(count) tasks still open"
    }

    /// Stops every app it started (a stopped one is continued first, so it can exit).
    public func stopApps() {
        for app in running.values { app.terminate(grace: .seconds(3)) }
        running = [:]
    }
}
