import Foundation
import MSAL
import UIKit

/// A shift-handover log kept in SQLite, in an MSAL app without background mode: it asks
/// `getCurrentAccount` at launch and whenever it comes back to the foreground, and deletes the
/// previous worker's entries when the account changed.
public class AppDelegate: UIResponder, UIApplicationDelegate {
    var window: UIWindow?
    var msalApplication: MSALPublicClientApplication?
    var log: ShiftLog?
    var currentUser: String?

    public func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        msalApplication = try? MSALPublicClientApplication(clientId: "0d7c3b5e-shifts-4a8f-contoso")
        let folder = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        log = try? ShiftLog(path: folder.appendingPathComponent("shifts.sqlite").path)
        checkAccount()
        return true
    }

    public func applicationWillEnterForeground(_ application: UIApplication) {
        checkAccount()
    }

    func checkAccount() {
        let parameters = MSALParameters()
        parameters.completionBlockQueue = .main
        msalApplication?.getCurrentAccount(with: parameters) { [weak self] current, previous, error in
            guard let self = self, error == nil else { return }
            if let previous = previous, previous.identifier != current?.identifier {
                self.log?.removeEntries(of: previous.username ?? "")
            }
            self.currentUser = current?.username
        }
    }
}
