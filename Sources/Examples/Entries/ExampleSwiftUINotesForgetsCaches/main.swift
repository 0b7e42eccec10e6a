import SwiftUINotes

NotesStore.mistake = .forgetsCaches
NotesApp.main()
