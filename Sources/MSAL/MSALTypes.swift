// swift-format-ignore-file: AlwaysUseLowerCamelCase

@_exported import CoreFoundationDarwin
// MSAL brings Foundation and UIKit, as its umbrella header does on iOS (a file that imports MSAL
// alone sees `UIViewController`).
@_exported import Foundation
@_exported import UIKit

// MSAL for iOS's public types, with their real spellings (Docs/behaviour.md §10). All are
// classes, as on Apple platforms, where they are NSObject subclasses.

/// The domain of every error MSAL gives an app.
public let MSALErrorDomain = "MSALErrorDomain"
/// Under this `userInfo` key, the specific code of an `MSALError.internal` error.
public let MSALInternalErrorCodeKey = "MSALInternalErrorCodeKey"
/// Under this `userInfo` key, a description of the error for the developer.
public let MSALErrorDescriptionKey = "MSALErrorDescriptionKey"

/// The codes an app sees. Only these (and -50142) reach an app as themselves; every other
/// error is `internal`, with the specific code under `MSALInternalErrorCodeKey`.
public enum MSALError: Int, Sendable {
    case `internal` = -50000
    case workplaceJoinRequired = -50001
    case interactionRequired = -50002
    case serverDeclinedScopes = -50003
    case serverProtectionPoliciesRequired = -50004
    case userCanceled = -50005
    case serverError = -50006
}

/// The specific codes of `MSALError.internal`.
public enum MSALInternalError: Int, Sendable {
    case invalidParameter = -42000
    case redirectSchemeNotRegistered = -42001
    case invalidRedirectURI = -42011
    case ambiguousAccount = -42102
    case brokerNotAvailable = -42714
}

/// The parts of an account's home identifier (`objectId.tenantId`).
public class MSALAccountId: NSObject {
    public let identifier: String?
    public let objectId: String?
    public let tenantId: String?

    init(identifier: String) {
        self.identifier = identifier
        let parts = identifier.split(separator: ".", maxSplits: 1).map(String.init)
        objectId = parts.first
        tenantId = parts.count > 1 ? parts[1] : nil
    }
}

/// An account the broker signed in; two are equal when their identifiers are, ignoring case.
public class MSALAccount: NSObject {
    public let username: String?
    public let identifier: String?
    public let environment: String
    public let homeAccountId: MSALAccountId?
    public let accountClaims: [String: Any]?
    public let isSSOAccount: Bool

    init(username: String, homeAccountID: String, environment: String) {
        self.username = username
        identifier = homeAccountID
        self.environment = environment
        homeAccountId = MSALAccountId(identifier: homeAccountID)
        accountClaims = ["preferred_username": username]
        isSSOAccount = true
    }

    public override func isEqual(_ object: Any?) -> Bool {
        (object as? MSALAccount)?.identifier?.lowercased() == identifier?.lowercased()
    }

    public override var hash: Int { identifier?.lowercased().hashValue ?? 0 }
    public override var description: String { "MSALAccount(\(username ?? "?"))" }
}

/// The account's profile in its home tenant.
public class MSALTenantProfile: NSObject {
    public let identifier: String?
    public let tenantId: String?
    public let environment: String?
    public let isHomeTenantProfile: Bool

    init(account: MSALAccount) {
        identifier = account.homeAccountId?.objectId
        tenantId = account.homeAccountId?.tenantId
        environment = account.environment
        isHomeTenantProfile = true
    }
}

/// What a token request gives: the access token, its account and when it expires.
public class MSALResult: NSObject {
    public let accessToken: String
    public let account: MSALAccount
    public let expiresOn: Date?
    public let idToken: String?
    public let scopes: [String]
    public let tenantProfile: MSALTenantProfile
    public let correlationId: UUID
    public let authority: MSALAuthority?

    init(accessToken: String, account: MSALAccount, expiresOn: Date?, scopes: [String], authority: MSALAuthority?) {
        self.accessToken = accessToken
        self.account = account
        self.expiresOn = expiresOn
        idToken = nil
        self.scopes = scopes
        tenantProfile = MSALTenantProfile(account: account)
        correlationId = UUID()
        self.authority = authority
    }
}

/// Whether the device is in shared device mode.
public enum MSALDeviceMode: Int, Sendable {
    case `default` = 0
    case shared = 1
}

/// What `getDeviceInformation` tells of the device.
public class MSALDeviceInformation: NSObject {
    public let deviceMode: MSALDeviceMode
    public let extraDeviceInformation: [AnyHashable: Any]
    public let hasAADSSOExtension: Bool

    init(deviceMode: MSALDeviceMode) {
        self.deviceMode = deviceMode
        extraDeviceInformation = [:]
        hasAADSSOExtension = false
    }
}

// MARK: - Configuration and parameters

/// The authority tokens come from; MSAL's default is `https://login.microsoftonline.com/common`.
public class MSALAuthority: NSObject {
    public let url: URL

    public init(url: URL) throws { self.url = url }
}

/// A Microsoft Entra ID authority.
public class MSALAADAuthority: MSALAuthority {}

/// An Azure AD B2C authority (`https://TENANT.b2clogin.com/tfp/TENANT/POLICY`). The device's
/// broker signs workers in whatever the authority says.
public class MSALB2CAuthority: MSALAuthority {}

/// The application's client ID, redirect URI and authority.
public class MSALPublicClientApplicationConfig: NSObject {
    public var clientId: String
    public var redirectUri: String?
    public var authority: MSALAuthority
    public var knownAuthorities: [MSALAuthority] = []
    /// Skips the check of the redirect URI against the app's Info.plist.
    public var bypassRedirectURIValidation = false

    public convenience init(clientId: String) {
        self.init(clientId: clientId, redirectUri: nil, authority: nil)
    }

    public init(clientId: String, redirectUri: String?, authority: MSALAuthority?) {
        self.clientId = clientId
        self.redirectUri = redirectUri
        // swift-format-ignore: NeverForceUnwrap
        self.authority =
            authority ?? (try! MSALAuthority(url: URL(string: "https://login.microsoftonline.com/common")!))
    }
}

/// The parameters every call takes: where its completion runs.
public class MSALParameters: NSObject {
    /// Where the completion runs; nil: whichever thread finished the work.
    public var completionBlockQueue: DispatchQueue?
    public var correlationId: UUID?

    public override init() {}
}

/// Which accounts `accountsFromDevice(for:completionBlock:)` returns, and what
/// `getCurrentAccount(with:completionBlock:)` is asked with.
public class MSALAccountEnumerationParameters: MSALParameters {
    public var identifier: String?
    public var username: String?
    public var tenantProfileIdentifier: String?
    /// Only accounts signed in to the device (the broker has only those here).
    public var returnOnlySignedInAccounts = true

    public override init() {}

    public init(identifier: String?) {
        self.identifier = identifier
    }

    public init(identifier: String?, username: String) {
        self.identifier = identifier
        self.username = username
    }

    public init(tenantProfileIdentifier: String) {
        self.tenantProfileIdentifier = tenantProfileIdentifier
    }
}

/// How MSAL shows its sign-in page.
public class MSALWebviewParameters: NSObject {
    /// The view controller the sign-in page is presented from. Any object of the app's is
    /// accepted, as nothing is drawn here; a `UIViewController` is what iOS code passes.
    public var parentViewController: AnyObject

    public init(authPresentationViewController: AnyObject) {
        parentViewController = authPresentationViewController
    }

    /// Without a view controller, as macOS code writes it (and the `#else` branch of code that
    /// tests `#if os(iOS)`, which is compiled on Linux).
    public convenience override init() {
        self.init(authPresentationViewController: NSObject())
    }
}

/// What the interactive sign-in asks of the user.
public enum MSALPromptType: Int, Sendable {
    case selectAccount, login, consent, create, promptIfNecessary
    public static let `default` = MSALPromptType.promptIfNecessary
}

/// The scopes, account and authority of a token request, interactive or silent.
public class MSALTokenParameters: MSALParameters {
    public var scopes: [String]
    /// The account whose token to give: required by a silent request (without it, the request
    /// fails with `interactionRequired`), a hint for an interactive one.
    public var account: MSALAccount?
    public var authority: MSALAuthority?

    public init(scopes: [String]) { self.scopes = scopes }
}

/// The parameters of `acquireToken(with:completionBlock:)`.
public class MSALInteractiveTokenParameters: MSALTokenParameters {
    public let webviewParameters: MSALWebviewParameters
    public var promptType: MSALPromptType = .default
    public var loginHint: String?
    public var domainHint: String?

    public init(scopes: [String], webviewParameters: MSALWebviewParameters) {
        self.webviewParameters = webviewParameters
        super.init(scopes: scopes)
    }
}

/// The parameters of `acquireTokenSilent(with:completionBlock:)`: the account whose token to give.
public class MSALSilentTokenParameters: MSALTokenParameters {
    public var forceRefresh = false

    public init(scopes: [String], account: MSALAccount) {
        super.init(scopes: scopes)
        self.account = account
    }
}

/// The parameters of `signout(with:signoutParameters:completionBlock:)`.
public class MSALSignoutParameters: MSALParameters {
    public let webviewParameters: MSALWebviewParameters
    public var signoutFromBrowser = false
    public var wipeAccount = false
    public var wipeCacheForAllAccounts = false

    public init(webviewParameters: MSALWebviewParameters) { self.webviewParameters = webviewParameters }
}

// MARK: - Global configuration

/// How much MSAL logs, from nothing to verbose.
public enum MSALLogLevel: Int, Sendable {
    case nothing, error, warning, info, verbose, last
}

/// Whether MSAL may use the broker.
public enum MSALBrokeredAvailability: Int, Sendable {
    case auto, none
}

/// Where MSAL's log messages go, and which.
public class MSALLoggerConfig: NSObject, @unchecked Sendable {
    private let lock = NSLock()
    private var level = MSALLogLevel.info
    private var pii = false
    private var callback: ((MSALLogLevel, String?, Bool) -> Void)?

    public var logLevel: MSALLogLevel {
        get { lock.withLock { level } }
        set { lock.withLock { level = newValue } }
    }

    public var piiEnabled: Bool {
        get { lock.withLock { pii } }
        set { lock.withLock { pii = newValue } }
    }

    /// Receives each message at the log level or above: its level, text, and whether it holds
    /// personal data.
    public func setLogCallback(_ callback: @escaping (MSALLogLevel, String?, Bool) -> Void) {
        lock.withLock { self.callback = callback }
    }

    /// Passes a message to the app's callback at `level` or above; one with personal data only
    /// when the app enabled it.
    func log(_ level: MSALLogLevel, _ message: String, containsPII: Bool = false) {
        let (callback, wanted) = lock.withLock {
            (self.callback, level.rawValue <= self.level.rawValue && (!containsPII || pii))
        }
        guard wanted, level != .nothing else { return }
        callback?(level, message, containsPII)
    }
}

/// Settings for every application object of the process.
public class MSALGlobalConfig: NSObject {
    public static let loggerConfig = MSALLoggerConfig()
    private static let availability = NSLock()
    nonisolated(unsafe) private static var brokered = MSALBrokeredAvailability.auto

    public static var brokerAvailability: MSALBrokeredAvailability {
        get { availability.withLock { brokered } }
        set { availability.withLock { brokered = newValue } }
    }
}
