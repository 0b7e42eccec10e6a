import FacadeCore
import Foundation
import SDKClients
import SharedDevice

/// MSAL Android's account: Kotlin's spellings of `getId()` and `getUsername()`.
public protocol IAccount: Sendable {
    /// The account's object id in its home tenant.
    var id: String { get }
    var username: String { get }
}

/// An account as the broker reports it.
struct Account: IAccount, Equatable {
    let id: String
    let username: String

    init(_ account: BrokerAccount) {
        // The broker's home account id is `OBJECT.TENANT`.
        id = String(account.homeAccountID.split(separator: ".", maxSplits: 1).first ?? "")
        username = account.username
    }
}

/// What the blocking `getCurrentAccount()` answers: Kotlin's spellings of `getCurrentAccount()`
/// and `getPriorAccount()`, and `didAccountChange()`.
public protocol ICurrentAccountResult: Sendable {
    var currentAccount: IAccount? { get }
    /// The account the app was told of before (the current one when nothing changed).
    var priorAccount: IAccount? { get }
    func didAccountChange() -> Bool
}

struct CurrentAccountResult: ICurrentAccountResult {
    let currentAccount: IAccount?
    let priorAccount: IAccount?
    private let changed: Bool

    init(current: IAccount?, prior: IAccount?, changed: Bool) {
        currentAccount = current
        priorAccount = prior
        self.changed = changed
    }

    init(_ callbacks: [AndroidMSALAccountRule.Callback]) {
        let current = callbacks.last?.account.map(Account.init)
        var prior: IAccount? = current
        var changed = false
        for case .accountChanged(let before, _) in callbacks {
            prior = before.map(Account.init)
            changed = true
        }
        self.init(current: current, prior: prior, changed: changed)
    }

    func didAccountChange() -> Bool { changed }
}

/// The result of a sign-in: MSAL's `IAuthenticationResult`, of which only the account is
/// kept here (the broker's tokens are not part of this API's use on a shared device).
public protocol IAuthenticationResult: Sendable {
    var account: IAccount { get }
}

struct AuthenticationResult: IAuthenticationResult {
    let account: IAccount
}

/// How an interactive call ends, on the main queue.
public protocol AuthenticationCallback {
    func onSuccess(_ authenticationResult: IAuthenticationResult)
    func onError(_ exception: MsalException)
    /// The person dismissed the page.
    func onCancel()
}

// MARK: - Exceptions

/// MSAL Android's exception: an `errorCode` (Kotlin's spelling of `getErrorCode()`) an app
/// compares with the subclasses' constants, and a message. It is an `NSError` whose underlying
/// error is the device's failure, as every facade's error is, so the host can name it.
open class MsalException: NSError, @unchecked Sendable {
    public let errorCode: String

    public init(errorCode: String, errorMessage: String? = nil, cause: (any Error)? = nil) {
        self.errorCode = errorCode
        var info: [String: Any] = [NSLocalizedDescriptionKey: errorMessage ?? errorCode]
        if let cause { info[NSUnderlyingErrorKey] = cause }
        super.init(domain: "MsalException", code: 0, userInfo: info)
    }

    public required init?(coder: NSCoder) { nil }

    /// The message it was made with (the code when none).
    public var message: String { localizedDescription }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// An error of the library itself, before or instead of the broker's answer. Its codes are
/// MSAL's constants, spelled as MSAL spells them.
public final class MsalClientException: MsalException, @unchecked Sendable {
    public static let INVALID_PARAMETER = "invalid_parameter"
    public static let NO_CURRENT_ACCOUNT = "no_current_account"
    public static let IO_ERROR = "io_error"
    public static let JSON_PARSE_FAILURE = "json_parse_failure"
    public static let UNKNOWN_ERROR = "unknown_error"
    public static let BROKER_NOT_INSTALLED = "broker_not_installed"
    /// MSAL's code is this sentence.
    public static let BROKER_BIND_FAILURE = "Failed to bind the service in broker app"
    public static let SINGLE_ACCOUNT_PCA_INIT_FAIL_ACCOUNT_MODE_ERROR_CODE = "single_account_pca_init_fail_account_mode"
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The broker or its server refused.
public final class MsalServiceException: MsalException, @unchecked Sendable {
    /// Wrong user name or password.
    public static let INVALID_GRANT = "invalid_grant"
    public static let UNKNOWN_ERROR = "unknown_error"
}

/// MSAL Android's one table from the device's failures to its exceptions.
enum MsalErrors {
    static let facade = Facade(errors: from)

    /// The exception for what the device or the client threw.
    static func exception(_ error: any Error) -> MsalException { from(DeviceFailure(error)) }

    /// The client's own refusals keep MSAL's codes; a broker that cannot be reached is one MSAL
    /// cannot bind to; the broker's refusals are the service's.
    private static func from(_ failure: DeviceFailure) -> MsalException {
        func client(_ code: String, _ message: String) -> MsalException {
            MsalClientException(errorCode: code, errorMessage: message, cause: failure)
        }
        switch failure.reason {
        case .unreachable(let message):
            return client(MsalClientException.BROKER_BIND_FAILURE, message ?? "the broker did not answer")
        case .invalid(let name, let message):
            return MsalServiceException(
                errorCode: MsalServiceException.UNKNOWN_ERROR,
                errorMessage: "\(name): \(message.isEmpty ? name : message)",
                cause: failure)
        case .refused(let error, let message):
            let text = message.isEmpty ? error.rawValue : message
            switch error {
            case .invalidParameter:
                return client(MsalClientException.INVALID_PARAMETER, text)
            case .noCurrentAccount:
                return client(MsalClientException.NO_CURRENT_ACCOUNT, text)
            case .badCredentials:
                return MsalServiceException(
                    errorCode: MsalServiceException.INVALID_GRANT, errorMessage: text, cause: failure)
            default:
                return MsalServiceException(
                    errorCode: MsalServiceException.UNKNOWN_ERROR, errorMessage: "\(error): \(text)", cause: failure)
            }
        case .ambiguousAccount:
            return client(MsalClientException.UNKNOWN_ERROR, "more than one account is signed in")
        case .unexpected(let description):
            return client(MsalClientException.UNKNOWN_ERROR, description)
        }
    }
}
