import DeviceContract
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

/// The names notify(3) accepts on a device.
public enum NotifyName {
    /// The longest name a post or a registration takes, in bytes. A post carries the name as a
    /// D-Bus string and a registration puts it in an `arg0` match rule; both fit a name this
    /// long, unless it is made mostly of quotes, which the rule spells in four bytes each: a
    /// name whose rule exceeds the bus's 1,024 bytes is refused as invalid too.
    public static let maxLength = 511

    /// Names private to the process: posted and delivered in it only, their state kept in it.
    public static let processLocalPrefix = "self."

    public static func isProcessLocal(_ name: String) -> Bool {
        name.utf8.starts(with: processLocalPrefix.utf8)
    }

    /// A name one may post: 1 to `maxLength` bytes without NUL.
    static func checkPostable(_ name: String) throws(NotifyFailure) {
        let bytes = name.utf8
        guard !bytes.isEmpty, bytes.count <= maxLength, !bytes.contains(0) else { throw .invalidName }
    }

    /// A name one may register for: postable, and (unless process-local) its match rule fits.
    static func checkRegistrable(_ name: String) throws(NotifyFailure) {
        try checkPostable(name)
        guard isProcessLocal(name) || DeviceBus.posts(of: name).text.utf8.count <= maxRuleLength else {
            throw .invalidName
        }
    }

    /// A name whose state the hub keeps: at most 255 bytes. The state of a longer name, which
    /// one may still post and register for, cannot be read or set.
    static func checkStateName(_ name: String) throws(NotifyFailure) {
        guard isProcessLocal(name) || NotifyCenter.isValidName(name) else { throw .invalidName }
    }

    /// The bus's limit on a match rule (`AddMatch`).
    private static let maxRuleLength = 1024
}
