import SQLiteShifts
import UIKit

ShiftLog.mistake = nil
AppDelegate.main()
