/// Errors an app or its SDK answers besides the hub's own (`DeviceError`), by the short name
/// each has on the bus (DeviceContract gives the full one and the message).
public enum AppError: String, Error, Sendable, CaseIterable {
    /// The app acts for nobody: it has no user's data to write.
    case noUser = "NoUser"
    /// The app's UI is blocked until it is launched again (Workspace ONE).
    case blocked = "Blocked"
    /// Only MSAL apps sign in and out.
    case notSupported = "NotSupported"
    /// The Workspace ONE SDK has not finished its initial check.
    case notInitialised = "NotInitialised"
    /// MSAL Android refused the app's own sign-in: an account is persisted in the app.
    case invalidParameter = "InvalidParameter"
    /// A step a person does in the app (`write`, `signin`, `signout`, `unlock`) while it is
    /// suspended: nobody can act in an app that is not on screen (Docs/behaviour.md §7).
    case suspended = "Suspended"
    /// The same, in an app that is not running.
    case notRunning = "NotRunning"
}
