import Foundation

// The SDK's value types a delegate and the controller hand an app. An app spells the enums
// `AWSDK.EnrollmentStatus` and `AWSDK.NetworkActivityStatus`, as the vendor's sample does: the
// module's name qualifies them here.

/// The device's enrollment status, as the console reports it.
public enum EnrollmentStatus: Int, Sendable {
    case deviceNotFound = 0
    case discovered
    case registered
    case enrollmentInProgress
    case enrolled
    case enterpriseWipePending
    case deviceWipePending
    case retired
    case unenrolled
    case unknown
}

/// Why the app should stop its network activity.
public enum NetworkActivityStatus: Int, Sendable {
    case unknown
    case normal
    case networkNotReachable
    case connectedToUnknownSSID
    case cellularDataConnectionDisabled
    case cellularDataConnectionDisabledWhileRoaming
    case proxySetupFailed
}

/// A settings profile the console assigned to the app.
public class Profile: NSObject {
    /// The profile's name in the console.
    public let name: String

    init(name: String) { self.name = name }

    public override var description: String { "Profile(\(name))" }
}

/// The enrolled user's account as the SDK holds it: here, the user checked out on the shared
/// device when the SDK last looked.
public class EnrollmentAccount: NSObject {
    /// The user's name in the directory (`cou1`), as `UserInformation.userName` gives it.
    public let username: String
    /// Empty: the device never hands an app the user's password.
    public let password: String

    init(username: String) {
        self.username = username
        password = ""
    }

    public override var description: String { "EnrollmentAccount(\(username))" }
}
