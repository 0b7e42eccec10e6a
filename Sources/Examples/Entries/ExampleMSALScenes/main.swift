import MSALScenes
import UIKit

AppDelegate.checksInTheAppDelegate = false
AppDelegate.main()
