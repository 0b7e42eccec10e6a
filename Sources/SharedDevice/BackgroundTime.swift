/// How long an app without background mode keeps running once it went to the background
/// (Docs/behaviour.md §7): iOS gives it about 5 s after `applicationDidEnterBackground`, about
/// 30 s in all while it has a background task open (`beginBackgroundTask`), then suspends it.
public struct BackgroundTime: Equatable, Sendable {
    /// How long the app runs after entering the background with no background task open.
    public var grace: Duration
    /// How long, counted from entering the background, the app runs while a background task
    /// is open; the tasks' expiration handlers run when it is up. Never less than `grace`.
    public var task: Duration

    public init(grace: Duration = Self.iOS.grace, task: Duration = Self.iOS.task) {
        self.grace = grace
        self.task = task
    }

    /// As on iOS: about 5 s, about 30 s with a background task.
    public static let iOS = BackgroundTime(grace: .seconds(5), task: .seconds(30))
    /// Suspended the moment `applicationDidEnterBackground` returns, background task or not:
    /// for models that do not keep time (the fuzzer's simulation).
    public static let immediate = BackgroundTime(grace: .zero, task: .zero)

    /// Android freezes an app 10 s after it entered the cached state (the cached apps freezer
    /// of Android 14 and later), and has no background task to extend that.
    public static let androidFreezeAfter = Duration.seconds(10)

    /// The background time of an app of `sdk`: the device's iOS times for an iOS app; for an
    /// Android app, `freezeAfter` whether or not a task is open.
    public static func of(_ sdk: SDKKind, iOS: BackgroundTime, androidFreezeAfter freezeAfter: Duration)
        -> BackgroundTime
    {
        sdk.isAndroid ? BackgroundTime(grace: freezeAfter, task: freezeAfter) : iOS
    }

    /// The most a scenario may set either to: iOS once gave apps up to 10 minutes.
    public static let longest = Duration.seconds(600)

    /// How long the app runs in the background before it is suspended, with or without tasks open.
    public func allowance(withTasks: Bool) -> Duration { withTasks ? max(grace, task) : grace }
}
