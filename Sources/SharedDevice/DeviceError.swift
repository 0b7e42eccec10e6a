/// Every refusal a device gives, by the short name it has on the bus (DeviceContract gives the
/// full one, `dev.sdlab.Error.<Name>`, and the message) and in a scenario's `error:`: the
/// contract's, which the hub and the broker answer (Docs/behaviour.md, the contract in Bus/),
/// and an app's or its SDK's own.
public enum DeviceError: String, Error, Sendable, CaseIterable {
    // The hub's and the broker's.
    case notStagingUser = "NotStagingUser"
    case badCredentials = "BadCredentials"
    /// Too many wrong passwords for that user or from that client: refused unchecked for a while.
    case lockedOut = "LockedOut"
    case alreadyEnrolled = "AlreadyEnrolled"
    case offline = "Offline"
    case notEnrolled = "NotEnrolled"
    case alreadyCheckedOut = "AlreadyCheckedOut"
    case locked = "Locked"
    case notCheckedOut = "NotCheckedOut"
    case notShared = "NotShared"
    case alreadySignedIn = "AlreadySignedIn"
    case noCurrentAccount = "NoCurrentAccount"
    case accountMismatch = "AccountMismatch"

    // An app's or its SDK's.
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

extension DeviceError: CustomStringConvertible {
    /// Its name, as the bus and a scenario spell it (`NotCheckedOut`).
    public var description: String { rawValue }
}
