import DeviceHost

// The one file added to run the app in a SharedDeviceLab device; the others are the app as
// it ships. It says where a scenario's records go and what the app shows now.
extension AppDelegate: DeviceLabApp {
    func store(_ records: [DeviceRecord]) throws {
        for record in records {
            try account.notes.save(record.text, kind: record.kind, of: record.user, id: record.canary)
        }
    }

    func displayedRecords() -> [String] { account.notes.shownNotes() }
}
