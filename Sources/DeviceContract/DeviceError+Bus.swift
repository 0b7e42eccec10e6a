import DBusKit
import SharedDevice

extension DeviceError {
    /// The error's name on the bus: `dev.sdlab.Error.<Name>`.
    public var name: String { DeviceBus.errorPrefix + rawValue }

    /// The error as the bus carries it.
    public var dbusError: DBusError { DBusError(name: name, message: message) }

    /// The device's error that a bus error names; nil for any other bus error. The one place a
    /// device error is read from its name.
    public init?(_ error: DBusError) {
        guard error.name.hasPrefix(DeviceBus.errorPrefix) else { return nil }
        self.init(rawValue: String(error.shortName))
    }

    var message: String {
        switch self {
        case .notStagingUser: "only a staging user can enroll the device"
        case .badCredentials: "bad user name or password"
        case .lockedOut: "too many wrong passwords: try again later"
        case .alreadyEnrolled: "the device is already enrolled"
        case .offline: "the console cannot be reached"
        case .notEnrolled: "the device is not enrolled"
        case .alreadyCheckedOut: "the device is already checked out"
        case .locked: "the device is locked"
        case .notCheckedOut: "the device is not checked out"
        case .notShared: "the device is not shared"
        case .alreadySignedIn: "an account is already signed in"
        case .noCurrentAccount: "no account is signed in"
        case .accountMismatch: "that account is not the signed-in one"
        case .noUser: "the app has no current user"
        case .blocked: "the app's UI is blocked until it is launched again"
        case .notSupported: "only MSAL apps sign in and out"
        case .notInitialised: "the SDK has not finished its initial check"
        case .invalidParameter: "an account is already signed in"
        case .suspended: "the app is suspended: bring it to the foreground (or resume it) first"
        case .notRunning: "the app is not running: launch it first"
        }
    }
}

extension AndroidMSALAccountRule.Refusal {
    /// The refusal as the app answers it on the bus: `InvalidParameter` is the app's own,
    /// `NoCurrentAccount` the name the broker uses too.
    public var dbusError: DBusError {
        switch self {
        case .invalidParameter: DeviceError.invalidParameter.dbusError
        case .noCurrentAccount: .device(error.rawValue, "there is no signed-in account")
        }
    }
}

extension DBusError {
    /// A device error by its short name (`Offline`), with a message.
    public static func device(_ name: String, _ message: String = "") -> DBusError {
        DBusError(name: DeviceBus.errorPrefix + name, message: message)
    }

    /// Whether this is the device error of that short name (`Offline`).
    public func isDevice(_ name: String) -> Bool { self.name == DeviceBus.errorPrefix + name }
}
