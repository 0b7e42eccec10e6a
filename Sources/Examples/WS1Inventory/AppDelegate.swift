import AWSDK
import Foundation
import UIKit

/// A stock-taking app on a Workspace ONE shared device, written as a team writes it against
/// the Workspace ONE SDK: the SDK tells it at launch and on each return to the foreground that
/// the previous worker's session ended (wipe) or another began (user change); a start while
/// the device is checked in fails the initial check, and the app shows nothing.
public class AppDelegate: UIResponder, UIApplicationDelegate, AWControllerDelegate {
    var window: UIWindow?
    let inventory = InventoryStore()

    public func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        let controller = AWController.clientInstance()
        controller.callbackScheme = "contosoinventory"
        controller.delegate = self
        controller.start()
        return true
    }

    public func controllerDidFinishInitialCheck(error: NSError?) {
        if let error = error {
            if error.domain == AWSDKErrorDomains.setup,
                error.code == AWSDKSetupError.sharedDeviceNotCheckedOut.rawValue
            {
                inventory.isBlocked = true
            }
            return
        }
        UserInformationController.sharedInstance.retrieveUserInfo { [weak self] userInformation, _ in
            self?.inventory.currentUser = userInformation?.userName
        }
    }

    public func controllerDidWipeCurrentUserData() {
        inventory.wipeUserData()
    }

    public func controllerDidDetectUserChange() {
        inventory.currentUser = nil
    }
}
