import DeviceHost
import Foundation
import MSAL
import UIKit

// The one file a team adds to run its app in a SharedDeviceLab device: where the scenario's
// records go, the app's own sign-in and sign-out, and what it shows.
extension AppDelegate: DeviceLabApp {
    public func store(_ records: [DeviceRecord]) throws {
        for record in records {
            try store.save(note: record.text, kind: record.kind, of: record.user, id: record.canary)
        }
    }

    public func signIn(completion: @escaping (Error?) -> Void) {
        let parameters = MSALInteractiveTokenParameters(
            scopes: ["User.Read"],
            webviewParameters: MSALWebviewParameters(authPresentationViewController: UIViewController()))
        msalApplication?.acquireToken(with: parameters) { [weak self] _, error in
            self?.refreshAccount()
            completion(error)
        }
    }

    public func signOut(completion: @escaping (Error?) -> Void) {
        let parameters = MSALParameters()
        parameters.completionBlockQueue = .main
        msalApplication?.getCurrentAccount(with: parameters) { [weak self] account, _, _ in
            guard let self = self, let account = account else { return completion(nil) }
            let signout = MSALSignoutParameters(
                webviewParameters: MSALWebviewParameters(authPresentationViewController: UIViewController()))
            self.msalApplication?.signout(with: account, signoutParameters: signout) { _, error in completion(error) }
        }
    }

    public func displayedRecords() -> [String] { store.notes() }
}
