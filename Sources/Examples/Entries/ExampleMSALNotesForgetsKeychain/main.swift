import MSALNotes
import UIKit

NotesStore.mistake = .forgetsKeychain
AppDelegate.main()
