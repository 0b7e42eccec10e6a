import SharedDevice
import Testing

/// Docs/behaviour.md §7, background time: when an app sent to the background is suspended.
@Suite struct BackgroundTimeTests {
    typealias A = AppLifecycle.Action
    typealias E = AppLifecycle.Effect

    /// One thing that happens to a launched app, at a time in milliseconds after it was
    /// launched (at 0).
    enum Event: Sendable, CustomStringConvertible {
        case act(A, at: Int)
        /// The app says it has this many background tasks open.
        case tasks(Int, at: Int)
        case advance(to: Int)
        /// The expiration handlers returned with this many tasks still open (nil: not in time).
        case handlersReturned(Int?)

        var description: String {
            switch self {
            case .act(let action, let at): "\(action.rawValue)@\(at)"
            case .tasks(let open, let at): "tasks(\(open))@\(at)"
            case .advance(let to): "advance@\(to)"
            case .handlersReturned(let open): "handlersReturned(\(open.map(String.init) ?? "late"))"
            }
        }
    }

    static let iOS = BackgroundTime.iOS
    static let noGrace = BackgroundTime(grace: .zero)

    static func ms(_ value: Int) -> Duration { .milliseconds(value) }

    /// Launches an app at 0, then takes the events; returns the final state and the last
    /// event's effects.
    static func after(_ events: [Event], time: BackgroundTime, backgroundMode: Bool = false) throws
        -> (AppLifecycle.State, [E])
    {
        var app = AppLifecycle(backgroundMode: backgroundMode, backgroundTime: time)
        var effects = try app.apply(.launch, at: .zero)
        for event in events {
            switch event {
            case .act(let action, let at): effects = try app.apply(action, at: ms(at))
            case .tasks(let open, let at): effects = app.backgroundTasks(open, at: ms(at))
            case .advance(let to): effects = app.advance(to: ms(to))
            case .handlersReturned(let open): effects = app.expirationHandlersReturned(stillOpen: open)
            }
        }
        return (app.state, effects)
    }

    @Test(arguments: [
        // The grace: about 5 s after entering the background, then suspended.
        ([Event.act(.background, at: 1000)], iOS, false, AppLifecycle.State.background, [E.toldBackground]),
        ([.act(.background, at: 1000), .advance(to: 5999)], iOS, false, .background, []),
        ([.act(.background, at: 1000), .advance(to: 6000)], iOS, false, .suspended, [.stop]),
        ([.act(.background, at: 1000), .advance(to: 60000)], iOS, false, .suspended, [.stop]),
        // Sent to the background again while in it: the grace still counts from the first time.
        (
            [.act(.background, at: 1000), .act(.background, at: 3000), .advance(to: 6000)], iOS, false, .suspended,
            [.stop]
        ),
        // A background task: about 30 s from entering the background, its expiration handlers first.
        ([.act(.background, at: 0), .tasks(1, at: 10), .advance(to: 29999)], iOS, false, .background, []),
        (
            [.act(.background, at: 0), .tasks(1, at: 10), .advance(to: 30000)], iOS, false, .background,
            [.toldTasksExpire]
        ),
        (
            [.act(.background, at: 0), .tasks(2, at: 10), .tasks(1, at: 20), .advance(to: 30000)], iOS, false,
            .background, [.toldTasksExpire]
        ),
        // The handlers ended every task: suspended. A task that outlives its handler (or a
        // handler that does not return in time) ends the app: iOS kills it, and no code runs.
        (
            [.act(.background, at: 0), .tasks(1, at: 10), .advance(to: 30000), .handlersReturned(0)], iOS, false,
            .suspended, [.stop]
        ),
        (
            [.act(.background, at: 0), .tasks(1, at: 10), .advance(to: 30000), .handlersReturned(1)], iOS, false,
            .notRunning, [.kill]
        ),
        (
            [.act(.background, at: 0), .tasks(1, at: 10), .advance(to: 30000), .handlersReturned(nil)], iOS, false,
            .notRunning, [.kill]
        ),
        // Nothing more falls due while they run; a word of no tasks meanwhile changes nothing.
        (
            [.act(.background, at: 0), .tasks(1, at: 10), .advance(to: 30000), .advance(to: 90000)], iOS, false,
            .background, []
        ),
        (
            [.act(.background, at: 0), .tasks(1, at: 10), .advance(to: 30000), .tasks(0, at: 30001)], iOS, false,
            .background, []
        ),
        // A word that they returned, with no handlers running, changes nothing.
        ([.act(.background, at: 0), .handlersReturned(1)], iOS, false, .background, []),
        // A task begun in the foreground counts once the app is in the background.
        ([.tasks(1, at: 100), .act(.background, at: 1000), .advance(to: 6000)], iOS, false, .background, []),
        (
            [.tasks(1, at: 100), .act(.background, at: 1000), .advance(to: 31000)], iOS, false, .background,
            [.toldTasksExpire]
        ),
        // Its last task ended within the grace: suspended when the grace is over.
        ([.act(.background, at: 0), .tasks(1, at: 10), .tasks(0, at: 3000)], iOS, false, .background, []),
        (
            [.act(.background, at: 0), .tasks(1, at: 10), .tasks(0, at: 3000), .advance(to: 5000)], iOS, false,
            .suspended, [.stop]
        ),
        // Ended after the grace: suspended at once; another task still open keeps it running.
        ([.act(.background, at: 0), .tasks(1, at: 10), .tasks(0, at: 12000)], iOS, false, .suspended, [.stop]),
        ([.act(.background, at: 0), .tasks(2, at: 10), .tasks(1, at: 12000)], iOS, false, .background, []),
        // A word heard while the app still runs counts, even past its grace (the runner had not
        // suspended it yet, so it ran on); once it is suspended, the time that was up is up.
        ([.act(.background, at: 0), .tasks(1, at: 6000)], iOS, false, .background, []),
        ([.act(.background, at: 0), .advance(to: 6000), .tasks(1, at: 6001)], iOS, false, .suspended, []),
        // A return to the foreground or a suspend before the time is up: no suspension falls due.
        ([.act(.background, at: 0), .act(.foreground, at: 3000)], iOS, false, .foreground, [.toldForeground]),
        ([.act(.background, at: 0), .act(.foreground, at: 3000), .advance(to: 60000)], iOS, false, .foreground, []),
        // A resume of an app still running wakes nothing: its time goes on.
        ([.act(.background, at: 0), .act(.resume, at: 3000)], iOS, false, .background, []),
        ([.act(.background, at: 0), .act(.resume, at: 3000), .advance(to: 5000)], iOS, false, .suspended, [.stop]),
        // A suspended app woken by a resume runs for its background time again, from the resume.
        (
            [.act(.background, at: 0), .advance(to: 5000), .act(.resume, at: 10000)], iOS, false, .background,
            [.continue, .toldResumed]
        ),
        (
            [.act(.background, at: 0), .advance(to: 5000), .act(.resume, at: 10000), .advance(to: 14999)], iOS, false,
            .background, []
        ),
        (
            [.act(.background, at: 0), .advance(to: 5000), .act(.resume, at: 10000), .advance(to: 15000)], iOS, false,
            .suspended, [.stop]
        ),
        (
            [
                .act(.background, at: 0), .advance(to: 5000), .act(.resume, at: 10000), .tasks(1, at: 10010),
                .advance(to: 40000),
            ],
            iOS, false, .background, [.toldTasksExpire]
        ),
        // With background mode it runs on; with no time at all it is suspended once it handled the resume.
        ([.act(.suspend, at: 0), .act(.resume, at: 1000), .advance(to: 600_000)], iOS, true, .background, []),
        (
            [.act(.suspend, at: 0), .act(.resume, at: 1000)], BackgroundTime.immediate, false, .suspended,
            [.continue, .toldResumed, .stop]
        ),
        ([.act(.background, at: 0), .act(.suspend, at: 1000)], iOS, false, .suspended, [.stop]),
        ([.act(.background, at: 0), .act(.suspend, at: 1000), .advance(to: 60000)], iOS, false, .suspended, []),
        ([.act(.background, at: 0), .act(.launch, at: 3000), .advance(to: 60000)], iOS, false, .foreground, []),
        // Terminated within its grace it runs (SIGTERM); once suspended it is ended without running code.
        ([.act(.background, at: 0), .act(.terminate, at: 1000)], iOS, false, .notRunning, [.terminate]),
        ([.act(.background, at: 0), .advance(to: 5000), .act(.terminate, at: 6000)], iOS, false, .notRunning, [.kill]),
        ([.act(.background, at: 0), .act(.terminate, at: 1000), .advance(to: 60000)], iOS, false, .notRunning, []),
        // A stopped app says nothing: a late word from it changes nothing.
        ([.act(.suspend, at: 0), .tasks(1, at: 10)], iOS, false, .suspended, []),
        // Background mode: never suspended by the background, tasks or not.
        ([.act(.background, at: 0), .advance(to: 600_000)], iOS, true, .background, []),
        ([.act(.background, at: 0), .tasks(1, at: 10), .tasks(0, at: 60000)], iOS, true, .background, []),
        // background_grace 0s: suspended once applicationDidEnterBackground returned, unless a task is open.
        ([.act(.background, at: 0)], noGrace, false, .background, [.toldBackground]),
        ([.act(.background, at: 0), .advance(to: 0)], noGrace, false, .suspended, [.stop]),
        ([.act(.background, at: 0), .tasks(1, at: 0), .advance(to: 0)], noGrace, false, .background, []),
        ([.act(.background, at: 0), .tasks(1, at: 0), .tasks(0, at: 2000)], noGrace, false, .suspended, [.stop]),
        // No time at all: suspended as it is told, task or not.
        ([.act(.background, at: 0)], BackgroundTime.immediate, false, .suspended, [.toldBackground, .stop]),
        (
            [.tasks(1, at: 0), .act(.background, at: 0)], BackgroundTime.immediate, false, .suspended,
            [.toldBackground, .stop]
        ),
        // A task time shorter than the grace gives no more than the grace.
        (
            [.act(.background, at: 0), .tasks(1, at: 0), .advance(to: 4999)], BackgroundTime(task: .seconds(2)), false,
            .background, []
        ),
        (
            [.act(.background, at: 0), .tasks(1, at: 0), .advance(to: 5000)], BackgroundTime(task: .seconds(2)), false,
            .background, [.toldTasksExpire]
        ),
    ])
    func suspension(
        events: [Event], time: BackgroundTime, backgroundMode: Bool, state: AppLifecycle.State, effects: [E]
    )
        throws
    {
        let (final, last) = try Self.after(events, time: time, backgroundMode: backgroundMode)
        #expect(final == state, "\(events)")
        #expect(last == effects, "\(events)")
    }

    @Test func theSuspensionFallsDueAtTheGraceOrTheTaskTime() throws {
        var app = AppLifecycle(backgroundMode: false, backgroundTime: .iOS)
        _ = try app.apply(.launch, at: .seconds(1))
        #expect(app.suspensionDue == nil)
        _ = try app.apply(.background, at: .seconds(2))
        #expect(app.suspensionDue == .seconds(7) && app.backgroundSince == .seconds(2))
        _ = app.backgroundTasks(1, at: .seconds(3))
        #expect(app.suspensionDue == .seconds(32) && app.openTasks == 1)
        _ = app.backgroundTasks(0, at: .seconds(4))
        #expect(app.suspensionDue == .seconds(7))
        _ = try app.apply(.foreground, at: .seconds(5))
        #expect(app.suspensionDue == nil && app.backgroundSince == nil)
        _ = app.backgroundTasks(3, at: .seconds(6))
        _ = try app.apply(.crash, at: .seconds(7))
        #expect(app.openTasks == 0, "a process that ended has no tasks")
    }

    @Test func theDefaultsAreIOSs() {
        #expect(BackgroundTime.iOS == BackgroundTime(grace: .seconds(5), task: .seconds(30)))
        #expect(BackgroundTime() == .iOS)
        #expect(BackgroundTime.iOS.allowance(withTasks: false) == .seconds(5))
        #expect(BackgroundTime.iOS.allowance(withTasks: true) == .seconds(30))
        #expect(BackgroundTime.immediate.allowance(withTasks: true) == .zero)
    }

    @Test func aFleetSuspendsEachAppWhenItsTimeIsUpEarliestFirst() throws {
        let apps = ["mail", "notes", "scanner"].map {
            ($0, AppLifecycle(backgroundMode: $0 == "scanner", backgroundTime: .iOS))
        }
        var fleet = AppFleet(Dictionary(uniqueKeysWithValues: apps))
        _ = try fleet.apply(.launch, to: "notes", at: .seconds(0))
        // Launching mail sends notes to the background: it runs on for its grace.
        let launch = try fleet.apply(.launch, to: "mail", at: .seconds(1))
        #expect(launch.map { "\($0.app) \($0.effect)" } == ["notes toldBackground", "mail spawn"])
        #expect(fleet.apps["notes"]?.state == .background && fleet.nextSuspension == .seconds(6))
        _ = try fleet.apply(.launch, to: "scanner", at: .seconds(2))
        #expect(fleet.nextSuspension == .seconds(6), "mail's grace ends at 7 s, notes' first")
        #expect(fleet.backgroundTasks(1, of: "mail", at: .seconds(3)).isEmpty)
        #expect(fleet.advance(to: .seconds(5)).isEmpty)
        #expect(
            fleet.advance(to: .seconds(40)).map { "\($0.app) \($0.effect)" } == [
                "notes stop", "mail toldTasksExpire",
            ])
        #expect(fleet.nextSuspension == nil)
        #expect(
            fleet.expirationHandlersReturned(stillOpen: 0, of: "mail").map { "\($0.app) \($0.effect)" } == ["mail stop"]
        )
        #expect(fleet.apps["scanner"]?.state == .foreground && fleet.apps["mail"]?.state == .suspended)
        #expect(fleet.backgroundTasks(1, of: "nobody", at: .seconds(41)).isEmpty)
    }
}

/// Docs/behaviour.md §7: each platform's background time. Android freezes a cached app 10 s after
/// it entered the cached state and has no background task to extend that.
@Suite struct PlatformBackgroundTimeTests {
    @Test(arguments: [
        (SDKKind.msal, BackgroundTime.iOS),
        (.ws1, .iOS),
        (.msalAndroid, BackgroundTime(grace: .seconds(10), task: .seconds(10))),
    ])
    func eachPlatformsTime(sdk: SDKKind, time: BackgroundTime) {
        #expect(BackgroundTime.of(sdk, iOS: .iOS, androidFreezeAfter: BackgroundTime.androidFreezeAfter) == time)
    }

    @Test func aCachedAndroidAppIsFrozenItsFreezeTimeAfterItWentToTheBackground() throws {
        let time = BackgroundTime.of(.msalAndroid, iOS: .iOS, androidFreezeAfter: .seconds(10))
        var app = AppLifecycle(backgroundMode: false, backgroundTime: time)
        _ = try app.apply(.launch, at: .zero)
        _ = try app.apply(.background, at: .seconds(1))
        #expect(app.advance(to: .milliseconds(10_999)).isEmpty && app.state == .background)
        #expect(app.advance(to: .seconds(11)) == [.stop] && app.state == .suspended)
        // Woken for an event, it is cached again, and frozen once more its freeze time later.
        #expect(try app.apply(.resume, at: .seconds(20)) == [.continue, .toldResumed])
        #expect(app.suspensionDue == .seconds(30))
    }
}
