import Foundation
import MSAL

/// Who is signed in, as MSAL says, and the worker's notes.
final class AccountModel: ObservableObject {
    @Published private(set) var username: String?
    let notes = NotesStore()
    private var application: MSALPublicClientApplication?
    private var accountChanges: AccountChangeObserver?

    func start() {
        let configuration = MSALPublicClientApplicationConfig(
            clientId: "00000000-0000-0000-0000-000000000000", redirectUri: "msauth.com.contoso.swiftuinotes://auth",
            authority: nil)
        application = try? MSALPublicClientApplication(configuration: configuration)
        // The broker posts this on every global sign-out; it carries nothing: ask MSAL.
        accountChanges = AccountChangeObserver(name: "SHARED_MODE_CURRENT_ACCOUNT_CHANGED") { [weak self] in
            self?.refresh()
        }
    }

    /// Asks MSAL who is signed in; a changed account means the previous worker's notes go.
    func refresh() {
        let parameters = MSALParameters()
        parameters.completionBlockQueue = .main
        application?.getCurrentAccount(with: parameters) { [weak self] current, previous, error in
            guard let self, error == nil else { return }
            if let previous, previous.identifier != current?.identifier {
                self.notes.removeEverything(of: previous.username ?? "")
            }
            self.notes.currentUser = current?.username
            self.username = current?.username
        }
    }
}
