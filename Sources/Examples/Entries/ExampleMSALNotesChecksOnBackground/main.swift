import MSALNotes
import UIKit

AppDelegate.checksOnTheWayToTheBackground = true
AppDelegate.main()
