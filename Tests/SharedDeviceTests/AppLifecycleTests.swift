import SharedDevice
import Testing

/// Docs/behaviour.md §7, transition by transition.
@Suite struct AppLifecycleTests {
    typealias A = AppLifecycle.Action
    typealias E = AppLifecycle.Effect

    /// Runs actions from not-running and returns the final state and the last action's effects.
    static func after(_ actions: [A], backgroundMode: Bool) throws -> (AppLifecycle.State, [E]) {
        var app = AppLifecycle(backgroundMode: backgroundMode)
        var effects: [E] = []
        for action in actions { effects = try app.apply(action) }
        return (app.state, effects)
    }

    @Test(arguments: [
        ([A.launch], true, AppLifecycle.State.foreground, [E.spawn]),
        ([.launch, .launch], true, .foreground, []),
        ([.launch, .background, .launch], true, .foreground, [.toldForeground]),
        ([.launch, .background, .launch], false, .foreground, [.continue, .toldForeground]),
        ([.launch, .background], true, .background, [.toldBackground]),
        ([.launch, .background], false, .suspended, [.toldBackground, .stop]),
        ([.launch, .background, .foreground], true, .foreground, [.toldForeground]),
        ([.launch, .background, .foreground], false, .foreground, [.continue, .toldForeground]),
        ([.launch, .suspend], true, .suspended, [.stop]),
        ([.launch, .suspend, .resume], true, .background, [.continue, .toldResumed]),
        // Woken to handle the resume, then suspended again: with no background time, at once.
        ([.launch, .background, .resume], false, .suspended, [.continue, .toldResumed, .stop]),
        ([.launch, .terminate], true, .notRunning, [.terminate]),
        ([.launch, .suspend, .terminate], true, .notRunning, [.kill]),
        ([.launch, .background, .terminate], false, .notRunning, [.kill]),
        ([.launch, .suspend, .crash], true, .notRunning, [.kill]),
        ([.launch, .crash, .launch], true, .foreground, [.spawn]),
        ([.terminate], true, .notRunning, []),
        ([.launch, .foreground], true, .foreground, []),
    ])
    func transitions(actions: [A], backgroundMode: Bool, state: AppLifecycle.State, effects: [E]) throws {
        let (final, last) = try Self.after(actions, backgroundMode: backgroundMode)
        #expect(final == state)
        #expect(last == effects)
    }

    /// An app whose process ended on its own (it exited, or was killed from outside) is not
    /// running: the next launch starts it again rather than bringing a dead app to the front,
    /// and no suspension is left pending for it.
    @Test func anAppWhoseProcessEndedIsLaunchedAgain() throws {
        var fleet = AppFleet(["mail": AppLifecycle(backgroundMode: false), "notes": AppLifecycle(backgroundMode: true)])
        _ = try fleet.apply(.launch, to: "mail")
        _ = try fleet.apply(.launch, to: "notes")
        #expect(fleet.apps["mail"]?.state == .suspended)
        fleet.processEnded("notes")
        #expect(fleet.apps["notes"]?.state == .notRunning && fleet.foregroundApp == nil)
        #expect(try fleet.apply(.launch, to: "notes").map { "\($0.app) \($0.effect)" } == ["notes spawn"])
        var background = AppLifecycle(backgroundMode: false, backgroundTime: .init(grace: .seconds(5)))
        _ = try background.apply(.launch)
        _ = try background.apply(.background, at: .seconds(1))
        #expect(background.suspensionDue != nil)
        background.processEnded()
        #expect(background.state == .notRunning && background.suspensionDue == nil && background.openTasks == 0)
        #expect(try background.apply(.launch) == [.spawn])
    }

    @Test(arguments: [A.foreground, .background, .suspend, .resume])
    func anAppThatIsNotRunningCannotBeMoved(action: A) {
        var app = AppLifecycle(backgroundMode: true)
        #expect(throws: AppLifecycle.Refusal.notRunning(action)) { try app.apply(action) }
    }

    @Test func oneAppIsInTheForegroundAtATime() throws {
        var fleet = AppFleet(["mail": AppLifecycle(backgroundMode: true), "notes": AppLifecycle(backgroundMode: false)])
        _ = try fleet.apply(.launch, to: "notes")
        let launch = try fleet.apply(.launch, to: "mail")
        #expect(launch.map { "\($0.app) \($0.effect)" } == ["notes toldBackground", "notes stop", "mail spawn"])
        #expect(fleet.foregroundApp == "mail" && fleet.apps["notes"]?.state == .suspended)
        let front = try fleet.apply(.foreground, to: "notes")
        #expect(
            front.map { "\($0.app) \($0.effect)" } == ["mail toldBackground", "notes continue", "notes toldForeground"])
        #expect(fleet.foregroundApp == "notes" && fleet.apps["mail"]?.state == .background)
        // Launching a running app brings it to the front, as a tap on its icon: no new process.
        let tap = try fleet.apply(.launch, to: "mail")
        #expect(tap.map { "\($0.app) \($0.effect)" } == ["notes toldBackground", "notes stop", "mail toldForeground"])
        #expect(fleet.foregroundApp == "mail")
    }

    /// Docs/behaviour.md §1: the worker opens the Hub app to check in or out; the app in front goes
    /// to the background, and the Hub is in front until an app comes to the foreground.
    @Test func theHubTakesTheFrontFromTheAppInFront() throws {
        var fleet = AppFleet(["mail": AppLifecycle(backgroundMode: true), "notes": AppLifecycle(backgroundMode: false)])
        _ = try fleet.apply(.launch, to: "mail")
        _ = try fleet.apply(.launch, to: "notes")
        let effects = fleet.hubTakesFront()
        #expect(effects.map { "\($0.app) \($0.effect)" } == ["notes toldBackground", "notes stop"])
        #expect(fleet.foregroundApp == nil && fleet.hubInFront)
        #expect(fleet.hubTakesFront().isEmpty, "nothing else to move")
        let back = try fleet.apply(.foreground, to: "notes")
        #expect(back.map { "\($0.app) \($0.effect)" } == ["notes continue", "notes toldForeground"])
        #expect(fleet.foregroundApp == "notes" && !fleet.hubInFront)
    }

    /// Docs/behaviour.md §2, §4–§6: which SDK asks when the app is resumed, and which post it hears.
    @Test(arguments: [
        (SDKKind.msal, true, NotifyCenter.accountChanged as String?),
        (.msalAndroid, true, "com.microsoft.identity.client.sharedmode.CURRENT_ACCOUNT_CHANGED"), (.ws1, false, nil),
    ])
    func whoChecksWhenResumedAndWhatItHears(sdk: SDKKind, checksWhenResumed: Bool, announcement: String?) {
        #expect(sdk.checksWhenResumed == checksWhenResumed)
        #expect(sdk.announcement == announcement)
        #expect(sdk.listensToPosts == (announcement != nil))
    }

    /// A check begun since the app was continued (for the posts it missed) serves the resume.
    @Test(
        arguments: [
            (SDKKind.msal, 100, 50, true), (.msal, 100, 100, false), (.msal, 100, 150, false),
            (.msalAndroid, 100, 0, true), (.ws1, 100, 0, false),
        ] as [(SDKKind, UInt64, UInt64, Bool)])
    func oneCheckPerResume(sdk: SDKKind, continuedAt: UInt64, lastCheckBegan: UInt64, checks: Bool) {
        #expect(sdk.checksOnResume(continuedAt: continuedAt, lastCheckBegan: lastCheckBegan) == checks)
    }
}
