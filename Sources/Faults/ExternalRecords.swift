import SharedDevice

/// What the hub's key service (`dev.sdlab.KeyService1.GetUserKey`) answers an app now.
enum KeyServiceAnswer: Equatable, Sendable {
    /// The hub is down: the bus answers `org.freedesktop.DBus.Error.ServiceUnknown`.
    case down
    /// The key of this user, the hub's current account.
    case serves(String)
    case refuses(DeviceError)
}

/// One app's `external` records as the built-in app handles them: the current user's key, fetched
/// from the key service and held in memory by the process (gone with it, forgotten by a
/// cleanup); whose ciphertext the container holds; and the lookup after every check that
/// fetches the key again when the container holds records of the app's user. The ciphertext
/// is never readable by an attacker (the key is never on disk), so these records make no
/// leak and, shown only to their own user, no exposure: only whether a write succeeds
/// depends on them.
struct ExternalRecords: Sendable {
    /// The user whose key the process holds.
    private var key: String?
    /// Whether `key` and the lookups made are known: not once a lookup depended on records a
    /// team's cleanup may have left (until the process or a cleanup forgets the key).
    private var keyKnown = true
    /// Users whose container was looked through since launch or the last forgotten key.
    private var lookedUp: Set<String> = []
    /// Users whose ciphertext the container holds, and those whose it may hold.
    private var stored: Set<String> = []
    private var maybeStored: Set<String> = []

    /// A new process, or a cleanup that discards the key.
    mutating func forgetKey() {
        key = nil
        keyKnown = true
        lookedUp = []
    }

    mutating func wrote(as user: String) {
        stored.insert(user)
        maybeStored.remove(user)
    }

    /// A cleanup ran: a policy deletes `external` records or keeps them; a team's code may
    /// have deleted them or not.
    mutating func cleanedUp(deleting: Bool, teamCode: Bool) {
        if deleting {
            stored = []
            maybeStored = []
        } else if teamCode {
            maybeStored.formUnion(stored)
            stored = []
        }
    }

    /// After each check (`ExternalKeys.fetchIfNeeded`): once per user, the key is
    /// fetched if the container holds records of the app's user; a failure is ignored.
    mutating func lookUp(for user: String?, answer: KeyServiceAnswer) {
        guard keyKnown, let user, key != user, lookedUp.insert(user).inserted else { return }
        if maybeStored.contains(user) {
            if answer == .serves(user) { keyKnown = false }
        } else if stored.contains(user), answer == .serves(user) {
            key = user
        }
    }

    /// Writing records of `user`: with the key held, nothing is asked; else the key service's
    /// answer decides. Not applicable when the outcome is not known: the hub down (its
    /// error is not a `dev.sdlab.Error` a scenario can expect) or, after a lookup that
    /// depended on a team's cleanup, whether the key is held.
    mutating func write(as user: String, answer: KeyServiceAnswer) -> SimulatedDevice.Outcome {
        if keyKnown, key == user { return .done }
        switch answer {
        case .serves(user):
            key = user
            return .done
        case .serves: return keyKnown ? .refused(.accountMismatch) : .notApplicable
        case .refuses(let error): return keyKnown ? .refused(error) : .notApplicable
        case .down: return .notApplicable
        }
    }
}
