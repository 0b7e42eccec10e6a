/// A point in the hub's handling of a session change at which a scenario can have it crash
/// (Docs/behaviour.md §1): before the change is saved, once it is saved, between the iOS
/// broker's Darwin post and the Android broker's broadcast, and once both are sent, before
/// the caller is answered.
public enum HubCrashPoint: String, CaseIterable, Sendable {
    case beforeCommit = "before-commit"
    case afterCommit = "after-commit"
    case afterIOSPost = "after-ios-post"
    case afterPosts = "after-posts"

    /// The points a change that asks for `effects` passes, in order: every change is saved;
    /// only one that posts passes the posts.
    public static func passed(by effects: [HubModel.Effect]) -> [HubCrashPoint] {
        [.beforeCommit, .afterCommit] + effects.compactMap(reached(after:)) + (effects.isEmpty ? [] : [.afterPosts])
    }

    /// The point a change reaches once `effect` is sent, if that names one.
    public static func reached(after effect: HubModel.Effect) -> HubCrashPoint? {
        if case .post = effect { .afterIOSPost } else { nil }
    }

    /// Whether the point falls among the posts, after the change is saved.
    public var isAmongThePosts: Bool { self == .afterIOSPost || self == .afterPosts }
}
