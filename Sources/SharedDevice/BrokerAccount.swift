/// An account as the broker reports it (Docs/behaviour.md §2, §4).
public struct BrokerAccount: Codable, Equatable, Hashable, Sendable {
    public var homeAccountID: String
    public var username: String

    public init(homeAccountID: String, username: String) {
        self.homeAccountID = homeAccountID
        self.username = username
    }

    /// The broker's account for a directory user.
    public init(user: String) { self.init(homeAccountID: HubModel.homeAccountID(of: user), username: user) }

    /// MSAL compares home account ids without regard to case.
    public func isSameAccount(as other: BrokerAccount?) -> Bool {
        other.map { $0.homeAccountID.lowercased() == homeAccountID.lowercased() } ?? false
    }
}

/// Why the broker's accounts could not be had; an SDK then changes nothing.
public enum BrokerError: Error, Equatable, Sendable {
    /// Nobody answered: the hub is gone, or did not answer in time.
    case unreachable
    /// The broker refused, with the device's error.
    case refused(DeviceError)
    /// The broker answered with more than one account.
    case ambiguousAccount
    /// The answer was not of the contract (an account that is no account: `InvalidAnswer`), or
    /// an error that is not the device's: what it was.
    case invalidAnswer(String)

    /// The hub's answer held an account that is no account.
    public static let accountThatIsNone = BrokerError.invalidAnswer("InvalidAnswer")

    /// As the trace and the SDKs' errors name it: `HubUnreachable`, the device's error
    /// (`Offline`), `ambiguousAccount`, or what the answer was.
    public var label: String {
        switch self {
        case .unreachable: WorkspaceOneSessionRule.hubUnreachableError
        case .refused(let error): error.rawValue
        case .ambiguousAccount: "ambiguousAccount"
        case .invalidAnswer(let what): what
        }
    }
}

/// Whether two optional accounts name the same account (none equals none).
func sameAccount(_ a: BrokerAccount?, _ b: BrokerAccount?) -> Bool {
    a == nil ? b == nil : a!.isSameAccount(as: b)
}
