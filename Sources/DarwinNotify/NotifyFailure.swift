import SharedDevice

/// Why a notify(3) call failed: the statuses of `<notify.h>` other than OK, with their values.
public enum NotifyFailure: UInt32, Error, Sendable, CaseIterable {
    case invalidName = 1
    case invalidToken = 2
    case invalidPort = 3
    case invalidFile = 4
    case invalidSignal = 5
    case invalidRequest = 6
    case notAuthorized = 7
    case optionDisabled = 8
    case serverNotFound = 9
    case nullInput = 10
    case failed = 1_000_000
}

/// The names notify(3) accepts on a device: the center's one rule (`NotifyCenter`), 1 to 511
/// bytes without NUL for every call, and `self.` names kept in the process.
public enum NotifyName {
    /// The longest name, in bytes.
    public static let maxLength = NotifyCenter.maxNameLength

    /// Names private to the process: posted and delivered in it only, their state kept in it.
    public static let processLocalPrefix = NotifyCenter.processLocalPrefix

    public static func isProcessLocal(_ name: String) -> Bool { NotifyCenter.isProcessLocal(name) }

    /// A name one may post, register for, and read or set the state of.
    static func check(_ name: String) throws(NotifyFailure) {
        guard NotifyCenter.isValidName(name) else { throw .invalidName }
    }
}
