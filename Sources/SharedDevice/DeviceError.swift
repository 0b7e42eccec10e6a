/// Every refusal of the device contract (SPEC §2, §4). On the bus each becomes
/// `dev.sdlab.Error.<rawValue>`.
public enum DeviceError: String, Error, Sendable, CaseIterable {
    case notStagingUser = "NotStagingUser"
    case badCredentials = "BadCredentials"
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

    public static let namePrefix = "dev.sdlab.Error."
    public var name: String { Self.namePrefix + rawValue }
}
