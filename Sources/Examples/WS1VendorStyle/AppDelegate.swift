import AWSDK

/// An app delegate written the way the Workspace ONE vendor's integration sample writes one:
/// it imports AWSDK alone, logs through `AWLog*` in every callback, and checks that the SDK's
/// account is the user the console says is checked out, updating the credentials when they
/// differ. It keeps no data: it shows what the SDK tells an app, in the app's log.
@main
final class AppDelegate: UIResponder, UIApplicationDelegate, AWControllerDelegate {
    var window: UIWindow?

    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        let controller = AWController.clientInstance()
        controller.callbackScheme = "contosofieldservice"
        controller.delegate = self
        controller.start()
        AWLogVerbose("Workspace ONE SDK started")
        return true
    }

    func application(
        _ app: UIApplication, open url: URL, options: [UIApplication.OpenURLOptionsKey: Any] = [:]
    ) -> Bool {
        let source = options[.sourceApplication] as? String
        if AWController.clientInstance().handleOpenURL(url, fromApplication: source) {
            AWLogInfo("Handed the URL to the SDK")
            return true
        }
        return false
    }

    func controllerDidFinishInitialCheck(error: NSError?) {
        guard let error = error else {
            AWLogInfo("Initial check done")
            compareAccountWithServer()
            return
        }
        AWLogError("Initial check failed: \(error.domain) \(error.code)")
    }

    func controllerDidReceive(profiles: [Profile]) {
        AWLogVerbose("Received \(profiles.count) profiles")
        profiles.forEach { AWLogInfo(String(describing: $0)) }
    }

    func controllerDidReceive(enrollmentStatus: AWSDK.EnrollmentStatus) {
        AWLogInfo("Enrollment status: \(String(describing: enrollmentStatus))")
    }

    func controllerDidWipeCurrentUserData() {
        AWLogError("Application should wipe all secure data")
    }

    func controllerDidDetectUserChange() {
        AWLogWarning("User changed")
        AWController.clientInstance().updateUserCredentials { success, error in
            guard success else {
                AWLogError("Could not update the credentials: \(String(describing: error))")
                return
            }
            AWLogInfo("Updated the credentials for \(AWController.clientInstance().account?.username ?? "nobody")")
        }
    }

    func controllerDidLockDataAccess() { AWLogInfo("Data access locked") }
    func controllerWillPromptForPasscode() { AWLogInfo("About to prompt for the passcode") }
    func controllerDidUnlockDataAccess() { AWLogInfo("User unlocked") }

    func applicationShouldStopNetworkActivity(reason: AWSDK.NetworkActivityStatus) {
        AWLogError("Network activity must stop: \(String(describing: reason))")
    }

    func applicationCanResumeNetworkActivity() { AWLogInfo("Network activity may resume") }

    /// The SDK's account and the console's user must be one person.
    private func compareAccountWithServer() {
        guard let account = AWController.clientInstance().account, !account.username.isEmpty else {
            AWLogError("The SDK holds no account")
            return
        }
        UserInformationController.sharedInstance.retrieveUserInfo { userInformation, error in
            guard let userInformation = userInformation else {
                AWLogError("Could not fetch the user: \(String(describing: error))")
                return
            }
            if userInformation.userName.lowercased() == account.username.lowercased() {
                AWLogInfo("Account \(account.username) is the console's user")
            } else {
                AWLogError("Account \(account.username) is not the console's user \(userInformation.userName)")
            }
        }
    }
}
