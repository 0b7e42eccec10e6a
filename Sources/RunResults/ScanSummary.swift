import LeakScan
import SharedDevice

/// What the leak scanner finds at the end of a scenario, per app: leaks (another user's data
/// the app's cleanup does not declare it keeps, readable on disk), retained (what it declares
/// it keeps) and exposed (what the app displays of other users), each by user, kind and file.
public struct ScanSummary: Sendable, Equatable {
    public struct Findings: Sendable, Equatable {
        public init(leaks: [LeakScanner.Finding] = [], retained: [LeakScanner.Finding] = [], exposed: [Canary] = []) {
            self.leaks = leaks
            self.retained = retained
            self.exposed = exposed
        }

        public var leaks: [LeakScanner.Finding] = []
        public var retained: [LeakScanner.Finding] = []
        public var exposed: [Canary] = []
    }

    /// The hub's user at the end (nil: none).
    public var currentUser: String?
    /// By app.
    public var apps: [String: Findings] = [:]
    /// Apps that did not answer for what they show (a hung bus, a hung app), and why: their
    /// exposure is unknown, not none.
    public var unanswered: [String: String] = [:]
    /// What the scan could not read, and why: where there is any, the scan proves nothing of it,
    /// and the run cannot be judged (`unproven`).
    public var unreadable: [LeakScanner.Unreadable] = []
    /// The places the scenario declares out of scope (`scan: {skip: …}`), as `app/place`: not read.
    public var outOfScope: [String] = []
    /// The FIFOs and sockets the scan met: read by name and attributes, as they hold no bytes.
    public var notes: [LeakScanner.Note] = []

    public init() {}

    /// Why the scan at the end proves nothing, naming what it could not read (three places at
    /// most); nil when it read everything.
    public var unproven: String? {
        guard !unreadable.isEmpty else { return nil }
        return "the leak scan could not read everything, so it proves nothing there: "
            + unreadable.described(withApp: true) + "; the run cannot be judged"
    }

    /// `app: leaks 3: cou1 plain ×3 (documents/cou1/…)`, a line per app and finding kind, in name
    /// order; what could not be read first (`app: not read: PLACE REASON`), then what holds no
    /// bytes (`app: documents/p is a FIFO: …`).
    public var lines: [String] {
        let unread = Dictionary(grouping: unreadable, by: \.app)
        let noted = Dictionary(grouping: notes, by: \.app)
        let named = Set(apps.keys).union(unanswered.keys).union(unread.keys).union(noted.keys)
        return named.sorted().flatMap { app -> [String] in
            let unreadAndNoted =
                (unread[app] ?? []).map { "\(app): not read: \($0.described())" }
                + (unanswered[app].map { ["\(app): exposed unknown: \($0)"] } ?? [])
                + (noted[app] ?? []).map { "\(app): \($0)" }
            guard let found = apps[app] else { return unreadAndNoted }
            var lines: [String] = unreadAndNoted
            if !found.leaks.isEmpty { lines.append("\(app): leaks \(found.leaks.count): \(found.leaks.described)") }
            if !found.retained.isEmpty {
                lines.append("\(app): retained \(found.retained.count): \(found.retained.described)")
            }
            if !found.exposed.isEmpty {
                let byUser = Dictionary(grouping: found.exposed, by: \.user)
                lines.append(
                    "\(app): exposed \(found.exposed.count) on screen: "
                        + byUser.keys.sorted().map { "\($0) ×\(byUser[$0]!.count)" }.joined(separator: ", "))
            }
            return lines
        } + (outOfScope.isEmpty ? [] : ["out of scope, not read: " + outOfScope.joined(separator: ", ")])
    }
}
