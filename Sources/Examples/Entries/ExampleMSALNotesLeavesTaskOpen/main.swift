import MSALNotes
import UIKit

AppDelegate.syncsWithoutEndingItsTask = true
AppDelegate.main()
