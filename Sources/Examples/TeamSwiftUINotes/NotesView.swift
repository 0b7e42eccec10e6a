import SwiftUI

/// The worker's notes, or a prompt to sign in.
struct NotesView: View {
    @EnvironmentObject var account: AccountModel

    var body: some View {
        NavigationStack {
            List {
                if let user = account.username {
                    Section("Notes of \(user)") {
                        ForEach(account.notes.shownNotes(), id: \.self) { note in
                            Text(note)
                        }
                    }
                } else {
                    Text("Check the phone out in the Intelligent Hub to start your shift")
                        .foregroundStyle(.secondary)
                }
            }
            .navigationTitle("Notes")
        }
    }
}

#Preview {
    NotesView()
        .environmentObject(AccountModel())
}
