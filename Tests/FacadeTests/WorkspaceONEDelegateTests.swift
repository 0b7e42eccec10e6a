import AWSDK
import Foundation
import Testing

/// A Workspace ONE delegate written the way the vendor's integration sample writes one: every
/// callback logs through `AWLog*`, and it keeps what it heard.
final class VendorStyleSDKDelegate: NSObject, AWControllerDelegate {
    private let lock = NSLock()
    private var heard: [String] = []
    var onInitialCheck: ((NSError?) -> Void)?
    var onEnrollmentStatus: ((AWSDK.EnrollmentStatus) -> Void)?

    var events: [String] { lock.withLock { heard } }

    private func note(_ event: String) { lock.withLock { heard.append(event) } }

    func controllerDidFinishInitialCheck(error: NSError?) {
        guard let error else {
            AWLogInfo("initial check done")
            note("initial-check")
            onInitialCheck?(nil)
            return
        }
        AWLogError("initial check failed: \(error.domain) \(error.code)")
        note("initial-check(\(error.code))")
        onInitialCheck?(error)
    }

    func controllerDidReceive(profiles: [Profile]) {
        AWLogVerbose("received \(profiles.count) profiles")
        guard !profiles.isEmpty else { return AWLogError("no profile received") }
        profiles.forEach { AWLogInfo(String(describing: $0)) }
    }

    func controllerDidReceive(enrollmentStatus: AWSDK.EnrollmentStatus) {
        AWLogInfo("enrollment status: \(String(describing: enrollmentStatus))")
        note("enrollment(\(enrollmentStatus))")
        onEnrollmentStatus?(enrollmentStatus)
    }

    func controllerDidWipeCurrentUserData() { AWLogError("wipe all secure data") }
    func controllerDidDetectUserChange() { AWLogWarning("the user changed") }
    func controllerDidLockDataAccess() { AWLogInfo("data access locked") }
    func controllerWillPromptForPasscode() { AWLogInfo("about to prompt for the passcode") }
    func controllerDidUnlockDataAccess() { AWLogInfo("unlocked") }

    func applicationShouldStopNetworkActivity(reason: AWSDK.NetworkActivityStatus) {
        AWLogError("stop network activity: \(String(describing: reason))")
    }

    func applicationCanResumeNetworkActivity() { AWLogDebug("network activity may resume") }

    /// The sample's open-URL handling: the SDK's URLs first.
    func handle(_ url: URL, sourceApplication: String?) -> Bool {
        if AWController.clientInstance().handleOpenURL(url, fromApplication: sourceApplication) {
            AWLogInfo("handed the URL to the SDK")
            return true
        }
        return false
    }
}

/// The Workspace ONE SDK outside a device: the Hub cannot be reached.
@Suite(.serialized) struct WorkspaceONEOutsideADeviceTests {
    /// The process's one controller starts once: the initial check fails (the Hub cannot be
    /// reached), then the enrollment status is unknown; no account is held.
    @Test func theStartFailsTheInitialCheckThenTheStatusIsUnknown() async throws {
        let delegate = VendorStyleSDKDelegate()
        let controller = AWController.clientInstance()
        controller.delegate = delegate
        let status: AWSDK.EnrollmentStatus = await withCheckedContinuation { continuation in
            delegate.onEnrollmentStatus = { continuation.resume(returning: $0) }
            controller.start()
        }
        #expect(status == .unknown)
        #expect(
            delegate.events == ["initial-check(\(AWSDKSetupError.hubNotReachable.rawValue))", "enrollment(unknown)"])
        #expect(controller.account == nil)
    }

    @Test func updatingTheCredentialsFailsOnTheMainQueue() async {
        let mainQueue = DispatchSpecificKey<String>()
        DispatchQueue.main.setSpecific(key: mainQueue, value: "main")
        let (success, code, onMain) = await withCheckedContinuation { continuation in
            AWController.clientInstance().updateUserCredentials { success, error in
                continuation.resume(
                    returning: (success, error?.code, DispatchQueue.getSpecific(key: mainQueue) == "main"))
            }
        }
        #expect(!success && code == AWSDKSetupError.hubNotReachable.rawValue && onMain)
        #expect(AWController.clientInstance().account == nil)
    }

    @Test func theSDKClaimsNoURL() throws {
        let delegate = VendorStyleSDKDelegate()
        let url = try #require(URL(string: "contosoinventory://awsdk?callback=1"))
        #expect(!delegate.handle(url, sourceApplication: "com.air-watch.agent"))
        #expect(!AWController.clientInstance().handleOpenURL(nil, fromApplication: nil))
    }

}
