import SwiftUI

/// The worker's notes, or a prompt to sign in.
struct NotesView: View {
    @EnvironmentObject var account: AccountModel

    var body: some View {
        NavigationView {
            List {
                if let user = account.username {
                    Section(header: Text("Notes of \(user)")) {
                        ForEach(account.notes.shownNotes(), id: \.self) { note in
                            Text(note).font(.body)
                        }
                    }
                } else {
                    Text("Sign in in the Intelligent Hub to start your shift").foregroundColor(.secondary)
                }
            }
            .navigationBarTitle("Notes", displayMode: .inline)
        }
    }
}
