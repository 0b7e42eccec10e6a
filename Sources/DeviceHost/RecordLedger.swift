import SharedDevice

/// What of an app outlives its process (the host saves it as `host-state.json`): whom it
/// serves, and how many records of each user and kind it was handed, so that a record's
/// canary is never handed twice, across launches and crashes.
struct RecordLedger: Codable, Equatable {
    var user: String?
    /// By `USER/KIND` (`cou1/plain`).
    private(set) var written: [String: Int] = [:]

    /// The next `count` records of `kind` for `user` of `app`, numbered after those handed before.
    mutating func hand(_ count: Int, of kind: RecordKind, to user: String, app: String) -> [DeviceRecord] {
        let key = "\(user)/\(kind.rawValue)"
        let first = (written[key] ?? 0) + 1
        written[key] = first + count - 1
        return (first..<first + count).map { number in
            let canary = Canary(user: user, app: app, kind: kind, number: number).description
            return DeviceRecord(
                user: user, kind: kind.rawValue, canary: canary, text: "\(canary) \(kind.rawValue) record of \(user)")
        }
    }
}
