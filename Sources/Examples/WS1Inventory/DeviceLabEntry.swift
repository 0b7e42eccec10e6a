import DeviceHost
import Foundation

// The one file a team adds to run its app in a SharedDeviceLab device.
extension AppDelegate: DeviceLabApp {
    public func store(_ records: [DeviceRecord]) throws {
        for record in records { try inventory.save(record.text, kind: record.kind, of: record.user) }
    }

    public func displayedRecords() -> [String] { inventory.counts() }
}
