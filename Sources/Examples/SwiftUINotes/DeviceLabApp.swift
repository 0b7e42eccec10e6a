import DeviceHost

// The one file added to run the app in a SharedDeviceLab device: where a scenario's records go
// and what the app shows now.
extension AppDelegate: DeviceLabApp {
    public func store(_ records: [DeviceRecord]) throws {
        for record in records { try account.notes.save(record.text, of: record.user, id: record.canary) }
    }

    public func displayedRecords() -> [String] { account.notes.shownNotes() }
}
