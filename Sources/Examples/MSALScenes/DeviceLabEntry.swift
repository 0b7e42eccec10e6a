import DeviceHost
import UIKit

// The one file a team adds to run its app in a SharedDeviceLab device: where the scenario's
// records go and what the app shows.
extension AppDelegate: DeviceLabApp {
    public func store(_ records: [DeviceRecord]) throws {
        for record in records { try notes.add(record.text, of: record.user) }
    }

    public func displayedRecords() -> [String] { notes.notes() }
}
