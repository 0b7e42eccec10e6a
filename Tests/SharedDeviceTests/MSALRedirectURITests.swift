import SharedDevice
import Testing

/// Docs/behaviour.md §10: MSAL for iOS's check of the redirect URI against the app's Info.plist
/// as `MSALPublicClientApplication(configuration:)` starts, row by row as MSAL's own unit tests
/// (`MSALPublicClientApplicationTests`) set up the Info.plist.
@Suite struct MSALRedirectURITests {
    typealias Parts = MSALRedirectURI.Parts

    static let bundle = "com.contoso.notes"
    static let querying = MSALRedirectURI.brokerQuerySchemes

    static func uri(_ scheme: String, _ host: String, fragment: Bool = false) -> Parts {
        Parts(text: "\(scheme)://\(host)" + (fragment ? "#x" : ""), scheme: scheme, host: host, hasFragment: fragment)
    }

    struct Row: Sendable, CustomStringConvertible {
        let description: String
        let uri: Parts?
        let schemes: [String]
        var queries: [String] = querying
        var brokerAllowed = true
        var organizational = true
        var bypass = false
        let outcome: Result<Parts?, MSALRedirectURI.Refusal>
    }

    static let rows: [Row] = [
        Row(
            description: "msauth.BUNDLE_ID://auth registered", uri: uri("msauth.com.contoso.notes", "auth"),
            schemes: ["msauth.com.contoso.notes"], outcome: .success(uri("msauth.com.contoso.notes", "auth"))),
        Row(
            description: "the scheme is not registered", uri: uri("msauth.com.contoso.notes", "auth"),
            schemes: ["myapp"],
            outcome: .failure(
                .schemeNotRegistered(scheme: "msauth.com.contoso.notes", uri: "msauth.com.contoso.notes://auth"))),
        Row(
            description: "no URL types at all", uri: uri("msauth.com.contoso.notes", "auth"), schemes: [],
            outcome: .failure(
                .schemeNotRegistered(scheme: "msauth.com.contoso.notes", uri: "msauth.com.contoso.notes://auth"))),
        Row(
            description: "no redirect URI: the broker's default, registered", uri: nil,
            schemes: ["msauth.com.contoso.notes"], outcome: .success(uri("msauth.com.contoso.notes", "auth"))),
        Row(
            description: "no redirect URI and no scheme: the broker's default is named", uri: nil, schemes: [],
            outcome: .failure(
                .schemeNotRegistered(scheme: "msauth.com.contoso.notes", uri: "msauth.com.contoso.notes://auth"))),
        Row(
            description: "no redirect URI, the older msalCLIENT_ID scheme, a B2C authority", uri: nil,
            schemes: ["msalclient"], organizational: false, outcome: .success(uri("msalclient", "auth"))),
        Row(
            description: "no redirect URI, the older msalCLIENT_ID scheme, an organisation", uri: nil,
            schemes: ["msalclient"],
            outcome: .failure(.cannotReachBroker(uri: "msalclient://auth", expected: "msauth.com.contoso.notes://auth"))
        ),
        Row(
            description: "ADAL's format: the bundle identifier as host", uri: uri("x-contoso", "com.contoso.notes"),
            schemes: ["x-contoso"], outcome: .success(uri("x-contoso", "com.contoso.notes"))),
        Row(
            description: "another bundle's msauth URI cannot reach the broker", uri: uri("msauth.com.other", "auth"),
            schemes: ["msauth.com.other"],
            outcome: .failure(
                .cannotReachBroker(uri: "msauth.com.other://auth", expected: "msauth.com.contoso.notes://auth"))),
        Row(
            description: "myapp:// with a consumers authority needs no broker", uri: uri("myapp", ""),
            schemes: ["myapp"],
            organizational: false, outcome: .success(uri("myapp", ""))),
        Row(
            description: "https needs no registration, but cannot reach the broker", uri: uri("https", "example.com"),
            schemes: [],
            outcome: .failure(
                .cannotReachBroker(uri: "https://example.com", expected: "msauth.com.contoso.notes://auth"))),
        Row(
            description: "the broker's query schemes are missing", uri: uri("msauth.com.contoso.notes", "auth"),
            schemes: ["msauth.com.contoso.notes"], queries: ["msauthv2", "msauthv-wrong"],
            outcome: .failure(.querySchemesNotRegistered)),
        Row(
            description: "without the broker the query schemes are not needed",
            uri: uri("msauth.com.contoso.notes", "auth"),
            schemes: ["msauth.com.contoso.notes"], queries: [], brokerAllowed: false,
            outcome: .success(uri("msauth.com.contoso.notes", "auth"))),
        Row(
            description: "a fragment", uri: uri("msauth.com.contoso.notes", "auth", fragment: true),
            schemes: ["msauth.com.contoso.notes"], outcome: .failure(.fragment)),
        Row(
            description: "bypassRedirectURIValidation checks nothing", uri: nil, schemes: [], queries: [], bypass: true,
            outcome: .success(nil)),
    ]

    @Test(arguments: rows) func check(_ row: Row) {
        let app = AppInfo(bundleIdentifier: Self.bundle, urlSchemes: row.schemes, querySchemes: row.queries)
        let request = MSALRedirectURI.Request(
            redirectURI: row.uri, clientID: "client", brokerAllowed: row.brokerAllowed,
            organizationalAuthority: row.organizational, bypass: row.bypass)
        #expect(MSALRedirectURI.check(request, in: app) == row.outcome)
    }

    @Test func refusalsAreNamedAsMSALsInternalCodes() {
        let refusals: [(MSALRedirectURI.Refusal, String)] = [
            (.schemeNotRegistered(scheme: "s", uri: "s://auth"), "redirectSchemeNotRegistered"),
            (.querySchemesNotRegistered, "redirectSchemeNotRegistered"),
            (.cannotReachBroker(uri: "s://x", expected: "msauth.b://auth"), "invalidRedirectURI"),
            (.fragment, "internal"),
        ]
        for (refusal, name) in refusals { #expect(refusal.name == name) }
    }
}
