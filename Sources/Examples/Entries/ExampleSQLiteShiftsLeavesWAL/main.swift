import SQLiteShifts
import UIKit

ShiftLog.mistake = .leavesDeletedRowsOnDisk
AppDelegate.main()
