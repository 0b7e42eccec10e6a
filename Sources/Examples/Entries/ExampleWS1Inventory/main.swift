import UIKit
import WS1Inventory

InventoryStore.mistake = nil
AppDelegate.main()
