import MSALNotes
import UIKit

NotesStore.mistake = nil
AppDelegate.main()
