/// When a team's own app must have cleaned up (Docs/behaviour.md §10, "A user change"): its SDK told it the
/// user changed. The host cannot see what the app decides, so it reads the SDK's answer as
/// the real SDK's documentation tells apps to read it, and from then on watches the bytes.
public enum UserChange {
    /// The user whose data the app must now remove, or nil when the result means no change.
    /// - MSAL (iOS): `previous` is the account of the app's last call; it means a change when it
    ///   is an account other than the current one: `(B, A)` and `(none, A)`. A first call
    ///   `(X, none)` and `(A, A)` mean none.
    /// - Workspace ONE (no `previous`): a `wipe` or `user-changed` callback; the user is the one
    ///   the app served before (`served`).
    public static func previousUser(_ result: CheckResult, served: String?) -> String?? {
        if case .some(let previous) = result.previous {
            guard let previous, previous != result.user else { return nil }
            return .some(previous)
        }
        guard result.callbacks.contains(where: { $0 == .wipe || $0 == .userChanged }) else { return nil }
        return .some(served)
    }
}
