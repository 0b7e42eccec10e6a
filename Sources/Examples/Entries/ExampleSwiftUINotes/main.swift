import SwiftUINotes

NotesApp.main()
