import UIKit
import WS1Inventory

InventoryStore.mistake = .forgetsApplicationSupport
AppDelegate.main()
