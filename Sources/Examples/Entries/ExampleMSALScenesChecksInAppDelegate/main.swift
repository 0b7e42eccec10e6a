import MSALScenes
import UIKit

AppDelegate.checksInTheAppDelegate = true
AppDelegate.main()
