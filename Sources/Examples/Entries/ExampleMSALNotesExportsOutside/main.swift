import MSALNotes
import UIKit

NotesStore.mistake = .exportsOutsideTheContainer
AppDelegate.main()
