/// Wrong passwords, counted (Docs/behaviour.md §1). After `limit` failures in a row for one
/// user name, or from one bus client, further attempts naming that user or coming from that
/// client are refused (`LockedOut`) without the password being checked, so without scrypt's
/// cost, until `coolDown` has passed since the last failure. A right password clears the
/// counts of its user and its client (the failures were not in a row); a client guessing at
/// many users is held back by its own count.
public struct PasswordLockout: Sendable, Equatable {
    public static let limit = 5
    public static let coolDown: Duration = .seconds(30)
    /// The most names and clients remembered (see `forgetOldest`).
    public static let capacity = 10_000

    /// Who tried: the user name given, and the client that gave it (its unique bus name).
    public enum Party: Hashable, Sendable {
        case user(String)
        case client(String)
    }

    struct Failures: Equatable, Sendable {
        var count: Int
        var last: Duration
    }

    private var failures: [Party: Failures] = [:]

    public init() {}

    /// How long until an attempt by `parties` is taken again, at `now` (any clock, as long as
    /// it is the same every time); nil when it is taken now.
    public func wait(for parties: [Party], at now: Duration) -> Duration? {
        parties.compactMap { party -> Duration? in
            guard let failed = failures[party], failed.count >= Self.limit else { return nil }
            let end = failed.last + Self.coolDown
            return end > now ? end - now : nil
        }.max()
    }

    /// An attempt by `parties` at `now`: refused with the wait while they are locked out, else
    /// counted as a failure until `succeeded` says otherwise. Counting before the password is
    /// checked means attempts made at once are held back too, not only those after a failure.
    public mutating func attempt(_ parties: [Party], at now: Duration) -> Duration? {
        if let wait = wait(for: parties, at: now) { return wait }
        for party in parties {
            var entry = failures[party] ?? Failures(count: 0, last: now)
            if now - entry.last >= Self.coolDown { entry.count = 0 }  // a cool-down ended: from one again
            entry.count += 1
            entry.last = now
            failures[party] = entry
        }
        if failures.count > Self.capacity { forgetOldest(at: now) }
        return nil
    }

    /// The attempt's password was right: its user's and its client's counts start again.
    public mutating func succeeded(user: String, client: String) {
        failures[.user(user)] = nil
        failures[.client(client)] = nil
    }

    /// Makes room: those whose cool-down is over go, then those not locked out, the longest
    /// quiet first, down to nine tenths of `capacity` (so this runs rarely).
    private mutating func forgetOldest(at now: Duration) {
        failures = failures.filter { now - $0.value.last < Self.coolDown }
        let room = Self.capacity * 9 / 10
        guard failures.count > room else { return }
        let locked = { (entry: Failures) in entry.count >= Self.limit ? 1 : 0 }
        let kept = failures.sorted { (locked($0.value), $0.value.last) > (locked($1.value), $1.value.last) }.prefix(
            room)
        failures = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
    }
}
