@_exported import CoreFoundationDarwin
import FacadeCore
// AWSDK brings Foundation and UIKit, as on iOS.
@_exported import Foundation
import SDKClients
import SharedDevice
import Synchronization
@_exported import UIKit

// The Workspace ONE SDK for iOS's public surface, with its real spellings (Docs/behaviour.md
// §10), over the device's Hub.

/// The error domains of the SDK's errors.
public enum AWSDKErrorDomains {
    /// Errors of the SDK's setup and initial check (`AWSDKSetupError`).
    public static let setup = "com.airwatch.sdk.setup"
}

/// The facade's calls, with the SDK's one table from the device's failures to its errors.
enum AWSDKErrors {
    /// The SDK hands on what the bus answered as it came, as it does every error it does not
    /// know; its own setup errors (`AWSDKSetupError`) are its decisions, not the device's failures.
    static let facade = Facade(errors: { failure in failure.cause as NSError })
}

/// The codes of `AWSDKErrorDomains.setup`.
public enum AWSDKSetupError: Int, Sendable {
    /// The initial check ran on a shared device that is checked in: nobody is signed in.
    case sharedDeviceNotCheckedOut = 31
    /// The Hub could not be reached.
    case hubNotReachable = 2
}

/// What a Workspace ONE app implements to hear from the SDK. All but the initial check are
/// optional (empty by default).
public protocol AWControllerDelegate: AnyObject {
    /// The initial check is done: nil, or why the app may not show a user's data.
    func controllerDidFinishInitialCheck(error: NSError?)
    /// The SDK deleted its data keys: the app deletes the previous user's data.
    func controllerDidWipeCurrentUserData()
    /// Another user is checked out than the SDK last saw.
    func controllerDidDetectUserChange()
    /// The device's enrollment status, at each start after the initial check: `enrolled`
    /// (checked in or out), `deviceNotFound` (not enrolled), `unknown` (the Hub did not answer).
    func controllerDidReceive(enrollmentStatus: EnrollmentStatus)
    /// New settings profiles; not sent here, as the device assigns none.
    func controllerDidReceive(profiles: [Profile])
    /// Data access is locked; not sent here (the device has no SDK passcode).
    func controllerDidLockDataAccess()
    /// Data access is unlocked; not sent here.
    func controllerDidUnlockDataAccess()
    /// The SDK is about to ask for the app passcode; not sent here.
    func controllerWillPromptForPasscode()
    /// The network breaks the console's access policy; not sent here, as the device sets none.
    func applicationShouldStopNetworkActivity(reason: NetworkActivityStatus)
    /// The network meets the access policy again; not sent here.
    func applicationCanResumeNetworkActivity()
}

extension AWControllerDelegate {
    public func controllerDidWipeCurrentUserData() {}
    public func controllerDidDetectUserChange() {}
    public func controllerDidReceive(enrollmentStatus: EnrollmentStatus) {}
    public func controllerDidReceive(profiles: [Profile]) {}
    public func controllerDidLockDataAccess() {}
    public func controllerDidUnlockDataAccess() {}
    public func controllerWillPromptForPasscode() {}
    public func applicationShouldStopNetworkActivity(reason: NetworkActivityStatus) {}
    public func applicationCanResumeNetworkActivity() {}
}

/// The SDK's controller. `start()` once per launch; the SDK then follows the app's lifecycle by
/// itself: at each return to the foreground it looks for a check-in or check-out (it hears no
/// broadcast). On a start after a check-in and a check-out by someone else the delegate hears,
/// in order: wipe (the SDK has deleted its data keys), user change, initial check.
public class AWController: NSObject, @unchecked Sendable {
    private static let shared = AWController()

    /// The process's one controller.
    public static func clientInstance() -> AWController { shared }

    private let lock = NSLock()
    private weak var currentDelegate: AWControllerDelegate?
    private var started = false
    private var sdk: WorkspaceOneController?
    private var enrolledAccount: EnrollmentAccount?

    /// Weak, as on iOS; setting it replaces the previous one.
    public weak var delegate: AWControllerDelegate? {
        get { lock.withLock { currentDelegate } }
        set { lock.withLock { currentDelegate = newValue } }
    }

    /// The app's URL scheme for the Hub's callbacks; not used on a simulated device.
    public var callbackScheme = ""

    /// The user checked out when the SDK last looked (its initial check, a return to the
    /// foreground, `updateUserCredentials`); nil before the initial check succeeded and once the
    /// SDK found the device checked in. Set before the delegate hears of that look.
    public var account: EnrollmentAccount? {
        lock.withLock { enrolledAccount }
    }

    /// Whether `url` is the Hub's answer to a request of the SDK's; the app handles any other URL
    /// itself. Always false here: the SDK asks the Hub over the device's bus and never waits
    /// for a URL.
    @discardableResult
    public func handleOpenURL(_ url: URL?, fromApplication: String?) -> Bool { false }

    /// Asks the Hub again who is checked out and updates `account`: true once it holds that
    /// user; false with `sharedDeviceNotCheckedOut` when nobody is, or `hubNotReachable`.
    /// Completes on the main queue.
    public func updateUserCredentials(completion: @escaping (Bool, NSError?) -> Void) {
        let completion = AppValue(completion)
        let call = AWSDKErrors.facade.call(completingOn: .main)
        guard let link = call.device(orElse: { completion.value(false, Self.error(.hubNotReachable)) }) else { return }
        let hub = WorkspaceOneHub(connection: link.connection, hub: link.hub, timeout: link.hubTimeout)
        call.run {
            let checkout = await hub.checkout()
            if let checkout { self.adopt(checkout.user) }
            let error: NSError? =
                switch checkout {
                case nil: Self.error(.hubNotReachable)
                case .nobody?: Self.error(.sharedDeviceNotCheckedOut)
                case .user?: nil
                }
            call.complete { completion.value(error == nil, error) }
        }
    }

    private func adopt(_ user: String?) {
        lock.withLock { enrolledAccount = user.map(EnrollmentAccount.init(username:)) }
    }

    /// What the console would say of the device, from the session the Hub answered (none: no answer).
    static func enrollment(_ session: Session?) -> EnrollmentStatus {
        switch session?.state {
        case .checkedIn?, .checkedOut?: .enrolled
        case .unenrolled?: .deviceNotFound
        case nil: .unknown
        }
    }

    private static func error(_ code: AWSDKSetupError, description: String? = nil) -> NSError {
        NSError(
            domain: AWSDKErrorDomains.setup, code: code.rawValue,
            userInfo: description.map { [NSLocalizedDescriptionKey: $0] })
    }

    /// Starts the SDK: the initial check, then a look at each return to the foreground.
    /// Without a device the initial check fails (the Hub cannot be reached).
    public func start() {
        let first = lock.withLock {
            defer { started = true }
            return !started
        }
        guard first else { return }
        let call = AWSDKErrors.facade.call(completingOn: .main)
        guard let link = call.link,
            let keychain = try? Keychain(folder: WorkspaceOneController.keychainFolder(in: link.keychainFolder))
        else {
            // Without a device, or without its keychain, the host hears nothing: no check began.
            return DispatchQueue.main.async {
                self.delegate?.controllerDidFinishInitialCheck(error: Self.error(.hubNotReachable))
                self.delegate?.controllerDidReceive(enrollmentStatus: .unknown)
            }
        }
        let sdk = WorkspaceOneController(
            connection: link.connection, keychain: keychain, hub: link.hub, timeout: link.hubTimeout)
        lock.withLock { self.sdk = sdk }
        // Observes for the rest of the process, as the SDK does once started.
        _ = NotificationCenter.default.addObserver(
            forName: AppLifecycleNames.willEnterForeground, object: nil, queue: nil
        ) { [weak self] _ in
            self?.look(link, coldStart: false) { await sdk.applicationWillEnterForeground() }
        }
        look(link, coldStart: true) { await sdk.start() }
    }

    /// Whether the SDK found the device checked in: the app's UI stays blocked until it is
    /// launched again.
    var isBlocked: Bool {
        guard let sdk = lock.withLock({ self.sdk }) else { return false }
        return AWSDKErrors.facade.call(completingOn: .main).wait { await sdk.isBlocked } ?? false
    }

    var controller: WorkspaceOneController? { lock.withLock { sdk } }

    /// One detection opportunity: asks the Hub, tells the host, then the delegate on the main queue
    /// (at a start, the enrollment status last).
    private func look(
        _ link: DeviceLink, coldStart: Bool,
        _ detect: @escaping @Sendable () async -> WorkspaceOneController.Detection
    ) {
        link.listener.checkStarted()
        let sdk = controller
        let call = AWSDKErrors.facade.call(completingOn: .main)
        call.run {
            let detection = await detect()
            let blocked = await sdk?.isBlocked ?? false
            let callbacks = detection.effects.compactMap { effect -> WorkspaceOneSessionRule.Callback? in
                if case .callback(let callback) = effect { callback } else { nil }
            }
            if !detection.taken {
                link.listener.checkFinished(.noOpportunity)
                return
            }
            let enrollment = coldStart ? Self.enrollment(detection.session) : nil
            // Without the hub's answer the SDK still acted (a failed initial check): the result
            // says so, and says nothing of the user.
            if let session = detection.session {
                self.adopt(blocked ? nil : session.checkedOutUser)
            } else if coldStart {
                self.adopt(nil)
            }
            var result = CheckResult(detection.effects, session: detection.session)
            result.keychainFailure = detection.keychainFailure
            link.listener.checkFinished(result)
            call.complete(afterCheck: true) { [weak self] in
                for callback in callbacks { self?.tell(callback) }
                if let enrollment { self?.delegate?.controllerDidReceive(enrollmentStatus: enrollment) }
            }
        }
    }

    private func tell(_ callback: WorkspaceOneSessionRule.Callback) {
        guard let delegate else { return }
        switch callback {
        case .wipe: delegate.controllerDidWipeCurrentUserData()
        case .userChanged: delegate.controllerDidDetectUserChange()
        case .initialCheck(error: nil): delegate.controllerDidFinishInitialCheck(error: nil)
        case .initialCheck(error: let error?):
            let code =
                error == WorkspaceOneSessionRule.notCheckedOutError
                ? AWSDKSetupError.sharedDeviceNotCheckedOut : AWSDKSetupError.hubNotReachable
            delegate.controllerDidFinishInitialCheck(error: Self.error(code, description: error))
        }
    }
}
