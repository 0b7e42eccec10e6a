import FacadeCore
import Foundation
import SDKClients
import SharedDevice

/// The app's assignment status, from the Hub's answer: enrolled while the device is staged
/// for sharing (checked in or out), the app supported and the device managed then.
public class ApplicationStatusInformation: NSObject {
    public let enrollmentStatus: EnrollmentStatus
    public let isAppSupported: Bool
    public let isDeviceManaged: Bool
    /// The console's version: none is known here.
    public let consoleVersion: String

    init(enrollmentStatus: EnrollmentStatus) {
        self.enrollmentStatus = enrollmentStatus
        isAppSupported = enrollmentStatus == .enrolled
        isDeviceManaged = enrollmentStatus == .enrolled
        consoleVersion = ""
    }
}

/// Whether a shared device is checked out.
public enum SharedDeviceStatus: Int, Sendable {
    case unknown, checkedInUnassigned, checkedOutAssigned
}

/// Whether the device is shared (staging enabled), checked out, and to whom.
public class SharedDeviceInformation: NSObject {
    public let isDeviceStagingEnabled: Bool
    public let sharedDeviceStatus: SharedDeviceStatus
    public let userContextID: String?

    init(isDeviceStagingEnabled: Bool, sharedDeviceStatus: SharedDeviceStatus, userContextID: String?) {
        self.isDeviceStagingEnabled = isDeviceStagingEnabled
        self.sharedDeviceStatus = sharedDeviceStatus
        self.userContextID = userContextID
    }
}

/// Whether the device is shared, and whether it is checked out (to whom).
public class DeviceInformationController: NSObject, @unchecked Sendable {
    /// The process's one controller.
    public static let sharedController = DeviceInformationController()

    /// Asks the Hub whether the device is shared and checked out; completes on the main queue.
    public func fetchApplicationAssignmentStatus(
        completion: @escaping (ApplicationStatusInformation?, SharedDeviceInformation?, Error?) -> Void
    ) {
        let completion = AppValue(completion)
        let call = AWSDKErrors.facade.call(completingOn: .main)
        guard
            let link = call.device(orElse: {
                completion.value(
                    nil, nil,
                    NSError(domain: AWSDKErrorDomains.setup, code: AWSDKSetupError.hubNotReachable.rawValue))
            })
        else { return }
        let hub = WorkspaceOneHub(connection: link.connection, hub: link.hub, timeout: link.hubTimeout)
        call.run {
            do {
                let (shared, session) = try await hub.assignment()
                let sharing: SharedDeviceStatus =
                    switch session?.state {
                    case .checkedOut?: .checkedOutAssigned
                    case .checkedIn?: .checkedInUnassigned
                    default: .unknown
                    }
                let information = SharedDeviceInformation(
                    isDeviceStagingEnabled: shared, sharedDeviceStatus: sharing, userContextID: session?.user)
                let status = ApplicationStatusInformation(enrollmentStatus: AWController.enrollment(session))
                call.complete { completion.value(status, information, nil) }
            } catch {
                call.complete { completion.value(nil, nil, call.error(error)) }
            }
        }
    }
}

/// The checked-out user, as the Hub's directory has them.
public class UserInformation: NSObject {
    public let userName: String
    public let userIdentifier: String
    public let firstName: String
    public let lastName: String
    public let email: String
    public let domain: String
    public let groupID: String

    init(_ fields: [String: String]) {
        userName = fields["userName"] ?? ""
        userIdentifier = fields["userIdentifier"] ?? ""
        firstName = fields["firstName"] ?? ""
        lastName = fields["lastName"] ?? ""
        email = fields["email"] ?? ""
        domain = fields["domain"] ?? ""
        groupID = fields["groupID"] ?? ""
    }
}

/// The checked-out user's identity: available once the SDK's initial check succeeded.
public class UserInformationController: NSObject, @unchecked Sendable {
    /// The process's one controller.
    public static let sharedInstance = UserInformationController()

    /// The checked-out user; fails until the initial check succeeded. Completes on the main queue.
    public func retrieveUserInfo(completionHandler: @escaping (UserInformation?, NSError?) -> Void) {
        let completion = AppValue(completionHandler)
        let call = AWSDKErrors.facade.call(completingOn: .main)
        guard call.link != nil, let sdk = AWController.clientInstance().controller else {
            let error = NSError(
                domain: AWSDKErrorDomains.setup, code: AWSDKSetupError.hubNotReachable.rawValue,
                userInfo: [NSLocalizedDescriptionKey: "the SDK has not finished its initial check"])
            return DispatchQueue.main.async { completion.value(nil, error) }
        }
        call.run {
            let answer: Result<[String: String], NSError>
            do { answer = .success(try await sdk.userInformation()) } catch { answer = .failure(call.error(error)) }
            call.complete {
                switch answer {
                case .success(let fields): completion.value(UserInformation(fields), nil)
                case .failure(let error): completion.value(nil, error)
                }
            }
        }
    }
}
