import MSALNotes
import UIKit

NotesStore.mistake = .forgetsCaches
AppDelegate.main()
