/// How a scan that could not read everything says so: one wording for the apps' own scans,
/// the runner's at each `expect` and the scan at the end of a run.
extension LeakScanner.Unreadable {
    /// `PLACE REASON`, the container itself named as such; with `app`, `APP/PLACE REASON`.
    public func described(withApp: Bool = false) -> String {
        let location = withApp ? "\(app)/\(place)" : (place == "." ? "the container" : place)
        return "\(location) \(reason)"
    }
}

extension [LeakScanner.Unreadable] {
    /// The first three places and why, and how many more there are.
    public func described(withApp: Bool = false) -> String {
        prefix(3).map { $0.described(withApp: withApp) }.joined(separator: "; ")
            + (count > 3 ? "; … \(count - 3) more" : "")
    }
}

extension LeakScanner.Scan {
    /// Why a scan of one container proves nothing, naming what it could not read; nil when it
    /// read everything.
    public var unproven: String? {
        isComplete
            ? nil : "the scan could not read the whole container, so it proves nothing: \(unreadable.described())"
    }

    /// What the app holds, as the trace's `holds` says it; nil for a scan that could not read
    /// everything, whose findings are not all there is.
    public var holdings: Holdings? { isComplete ? Holdings(findings) : nil }
}
