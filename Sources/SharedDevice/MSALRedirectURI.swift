/// What an app's Info.plist says that MSAL for iOS reads as it starts: the bundle identifier, the
/// URL schemes the app registered (`CFBundleURLTypes`' `CFBundleURLSchemes`) and the schemes it
/// may query (`LSApplicationQueriesSchemes`).
public struct AppInfo: Sendable, Equatable {
    public var bundleIdentifier: String
    public var urlSchemes: [String]
    public var querySchemes: [String]

    public init(bundleIdentifier: String, urlSchemes: [String] = [], querySchemes: [String] = []) {
        self.bundleIdentifier = bundleIdentifier
        self.urlSchemes = urlSchemes
        self.querySchemes = querySchemes
    }
}

/// MSAL for iOS's check of the redirect URI as `MSALPublicClientApplication(configuration:)`
/// starts (Docs/behaviour.md §10): the scheme must be one the app registered, a URI that can
/// reach the broker must be `msauth.BUNDLE_ID://auth` (or have the bundle identifier as its
/// host), and an app that may use the broker must be allowed to query its schemes. Pure: the
/// facade parses the URI and reads the Info.plist.
public enum MSALRedirectURI {
    /// A redirect URI's parts, as `NSURL` splits it.
    public struct Parts: Sendable, Equatable {
        public var text: String
        public var scheme: String
        public var host: String
        public var hasFragment: Bool

        public init(text: String, scheme: String, host: String, hasFragment: Bool = false) {
            self.text = text
            self.scheme = scheme
            self.host = host
            self.hasFragment = hasFragment
        }
    }

    /// What the application is configured with.
    public struct Request: Sendable, Equatable {
        /// The configured redirect URI; nil: MSAL's default.
        public var redirectURI: Parts?
        public var clientID: String
        /// `MSALGlobalConfig.brokerAvailability` is `auto`.
        public var brokerAllowed: Bool
        /// The authority is a Microsoft Entra organisation (not B2C, not `consumers`): it signs
        /// in through the broker, so the URI must reach it.
        public var organizationalAuthority: Bool
        /// `bypassRedirectURIValidation`: MSAL checks nothing.
        public var bypass: Bool

        public init(
            redirectURI: Parts?, clientID: String, brokerAllowed: Bool = true, organizationalAuthority: Bool = true,
            bypass: Bool = false
        ) {
            self.redirectURI = redirectURI
            self.clientID = clientID
            self.brokerAllowed = brokerAllowed
            self.organizationalAuthority = organizationalAuthority
            self.bypass = bypass
        }
    }

    /// Why MSAL refuses to start, each with its error.
    public enum Refusal: Error, Sendable, Equatable {
        /// The scheme is not among the app's URL schemes (`MSALInternalErrorRedirectSchemeNotRegistered`).
        case schemeNotRegistered(scheme: String, uri: String)
        /// `msauthv2` and `msauthv3` are not among the queried schemes (the same error).
        case querySchemesNotRegistered
        /// The URI cannot bring the broker's answer back (`MSALInternalErrorInvalidRedirectURI`).
        case cannotReachBroker(uri: String, expected: String)
        /// A fragment (`#…`), which RFC 6749 forbids in a redirect URI (`MSALErrorInternal`).
        case fragment

        /// The name the app's `error` expectation reads: MSAL's internal code's.
        public var name: String {
            switch self {
            case .schemeNotRegistered, .querySchemesNotRegistered: "redirectSchemeNotRegistered"
            case .cannotReachBroker: "invalidRedirectURI"
            case .fragment: "internal"
            }
        }

        /// What went wrong and what to change, as the error's description says it.
        public var message: String {
            switch self {
            case .schemeNotRegistered(let scheme, let uri):
                "the redirect URI \(uri) uses the scheme \(scheme), which the app's Info.plist does not register: add it under CFBundleURLTypes, CFBundleURLSchemes"
            case .querySchemesNotRegistered:
                "the app's Info.plist does not list msauthv2 and msauthv3 under LSApplicationQueriesSchemes, which MSAL needs to reach the broker"
            case .cannotReachBroker(let uri, let expected):
                "the redirect URI \(uri) cannot bring the broker's answer back to this app: use \(expected)"
            case .fragment: "a redirect URI must not have a fragment (#...)"
            }
        }
    }

    /// The schemes MSAL must be allowed to query to find the broker.
    public static let brokerQuerySchemes = ["msauthv2", "msauthv3"]

    /// MSAL's default redirect URI, the one that reaches the broker.
    public static func brokerURI(for app: AppInfo) -> Parts {
        let scheme = "msauth." + app.bundleIdentifier
        return Parts(text: scheme + "://auth", scheme: scheme, host: "auth")
    }

    /// The redirect URI MSAL starts with, or why it refuses to start.
    public static func check(_ request: Request, in app: AppInfo) -> Result<Parts?, Refusal> {
        if request.bypass {
            if request.redirectURI?.hasFragment == true { return .failure(.fragment) }
            return .success(request.redirectURI)
        }
        let chosen: (uri: Parts, reachesBroker: Bool)
        switch resolve(request, in: app) {
        case .success(let resolved): chosen = resolved
        case .failure(let refusal): return .failure(refusal)
        }
        if !chosen.reachesBroker && request.organizationalAuthority {
            return .failure(.cannotReachBroker(uri: chosen.uri.text, expected: brokerURI(for: app).text))
        }
        if request.brokerAllowed && chosen.reachesBroker
            && !brokerQuerySchemes.allSatisfy(app.querySchemes.contains)
        {
            return .failure(.querySchemesNotRegistered)
        }
        return .success(chosen.uri)
    }

    /// The configured URI, or MSAL's default (the broker's, else the older `msalCLIENT_ID://auth`),
    /// once its scheme is registered.
    private static func resolve(_ request: Request, in app: AppInfo) -> Result<(Parts, Bool), Refusal> {
        if let uri = request.redirectURI {
            if uri.hasFragment { return .failure(.fragment) }
            guard isRegistered(uri, in: app) else {
                return .failure(.schemeNotRegistered(scheme: uri.scheme, uri: uri.text))
            }
            return .success((uri, reachesBroker(uri, app: app)))
        }
        let broker = brokerURI(for: app)
        if isRegistered(broker, in: app) { return .success((broker, true)) }
        let older = Parts(text: "msal\(request.clientID)://auth", scheme: "msal\(request.clientID)", host: "auth")
        if isRegistered(older, in: app) { return .success((older, false)) }
        return .failure(.schemeNotRegistered(scheme: broker.scheme, uri: broker.text))
    }

    /// HTTPS needs no registration; any other scheme must be one of the app's.
    private static func isRegistered(_ uri: Parts, in app: AppInfo) -> Bool {
        uri.scheme == "https" || app.urlSchemes.contains(uri.scheme)
    }

    /// MSAL's format (`msauth.BUNDLE_ID://auth`) or ADAL's (any scheme, the bundle identifier as host).
    private static func reachesBroker(_ uri: Parts, app: AppInfo) -> Bool {
        uri.text == brokerURI(for: app).text || (uri.host == app.bundleIdentifier && !uri.scheme.isEmpty)
    }
}
