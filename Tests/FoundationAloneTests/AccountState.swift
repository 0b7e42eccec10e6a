import Foundation

/// A view model as the public MSAL SwiftUI samples write one, in a file that imports Foundation
/// alone: on iOS Foundation brings `ObservableObject` and `@Published`.
final class AccountState: ObservableObject {
    @Published var username: String?
    @Published private(set) var signedIn = false

    func signIn(as user: String) {
        username = user
        signedIn = true
    }

    func signOut() {
        username = nil
        signedIn = false
    }
}
