/// Every refusal of the device contract (Docs/behaviour.md, the contract in Bus/), by the short name it has on the bus
/// (DeviceContract gives the full one).
public enum DeviceError: String, Error, Sendable, CaseIterable {
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
}
