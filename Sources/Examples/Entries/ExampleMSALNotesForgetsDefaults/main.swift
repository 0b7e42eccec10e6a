import MSALNotes
import UIKit

NotesStore.mistake = .forgetsDefaults
AppDelegate.main()
