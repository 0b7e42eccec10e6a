import Foundation
import MSAL

/// Who is signed in, as MSAL says, and the worker's notes. The views watch `username`.
final class AccountModel: ObservableObject {
    @Published private(set) var username: String?
    let notes = NotesStore()
    private var msalApplication: MSALPublicClientApplication?
    private var accountChanges: AccountChangeObserver?

    func start() {
        let configuration = MSALPublicClientApplicationConfig(
            clientId: "00000000-0000-0000-0000-000000000000", redirectUri: "msauth.com.contoso.notes://auth",
            authority: nil)
        do {
            msalApplication = try MSALPublicClientApplication(configuration: configuration)
        } catch {
            NSLog("MSAL could not start: \(error)")
        }
        // The broker posts this on every global sign-in and sign-out. It carries nothing:
        // the app asks MSAL what changed.
        accountChanges = AccountChangeObserver(name: "SHARED_MODE_CURRENT_ACCOUNT_CHANGED") { [weak self] in
            self?.refresh()
        }
    }

    /// Asks MSAL who is signed in; a changed account means the previous worker's data goes.
    func refresh() {
        let parameters = MSALParameters()
        parameters.completionBlockQueue = DispatchQueue.main
        msalApplication?.getCurrentAccount(with: parameters) { [weak self] currentAccount, previousAccount, error in
            guard let self = self else { return }
            if let error = error {
                NSLog("getCurrentAccount failed: \(error)")
                return
            }
            if let previousAccount = previousAccount, previousAccount.identifier != currentAccount?.identifier {
                self.notes.removeEverything(of: previousAccount.username ?? "")
            }
            self.notes.currentUser = currentAccount?.username
            self.username = currentAccount?.username
        }
    }
}
