import Foundation
import SharedDevice
import Testing

@testable import MSAL

/// `MSALPublicClientApplication(configuration:)` refuses a redirect URI the app's Info.plist
/// does not allow with MSAL's errors (Docs/behaviour.md §10), as MSAL's own tests check them.
@Suite(.serialized) struct RedirectURICheckTests {
    static let notes = AppInfo(
        bundleIdentifier: "com.contoso.notes", urlSchemes: ["msauth.com.contoso.notes"],
        querySchemes: ["msauthv2", "msauthv3"])

    static func internalCode(_ config: MSALPublicClientApplicationConfig, _ app: AppInfo = notes) -> Int? {
        guard let (_, error) = MSALPublicClientApplication.refusal(of: config, in: app) else { return nil }
        #expect(error.domain == MSALErrorDomain && error.code == MSALError.internal.rawValue)
        #expect(!(error.userInfo[MSALErrorDescriptionKey] as? String ?? "").isEmpty)
        return error.userInfo[MSALInternalErrorCodeKey] as? Int ?? 0
    }

    @Test func theAppsOwnSchemeStartsAndAnotherIsNotRegistered() throws {
        let good = MSALPublicClientApplicationConfig(
            clientId: "c", redirectUri: "msauth.com.contoso.notes://auth", authority: nil)
        #expect(Self.internalCode(good) == nil)
        #expect(Self.internalCode(MSALPublicClientApplicationConfig(clientId: "c")) == nil, "the default URI")
        let other = MSALPublicClientApplicationConfig(clientId: "c", redirectUri: "contoso://auth", authority: nil)
        #expect(Self.internalCode(other) == MSALInternalError.redirectSchemeNotRegistered.rawValue)
        #expect(MSALInternalError.redirectSchemeNotRegistered.rawValue == -42001)
        other.bypassRedirectURIValidation = true
        #expect(Self.internalCode(other) == nil)
    }

    @Test func aURIThatCannotReachTheBrokerIsInvalidUnderAnOrganisationOnly() throws {
        var app = Self.notes
        app.urlSchemes.append("myapp")
        let organisation = MSALPublicClientApplicationConfig(clientId: "c", redirectUri: "myapp://x", authority: nil)
        #expect(Self.internalCode(organisation, app) == MSALInternalError.invalidRedirectURI.rawValue)
        let consumers = try MSALAuthority(url: #require(URL(string: "https://login.microsoftonline.com/consumers")))
        let personal = MSALPublicClientApplicationConfig(clientId: "c", redirectUri: "myapp://x", authority: consumers)
        #expect(Self.internalCode(personal, app) == nil)
        let b2c = try MSALB2CAuthority(url: #require(URL(string: "https://contoso.b2clogin.com/tfp/contoso/signin")))
        #expect(
            Self.internalCode(
                MSALPublicClientApplicationConfig(clientId: "c", redirectUri: "myapp://x", authority: b2c), app)
                == nil)
    }

    @Test func theBrokersQuerySchemesAreNeededOnlyWhenTheBrokerMayBeUsed() throws {
        var app = Self.notes
        app.querySchemes = ["msauthv2"]
        let config = MSALPublicClientApplicationConfig(clientId: "c")
        #expect(Self.internalCode(config, app) == MSALInternalError.redirectSchemeNotRegistered.rawValue)
        MSALGlobalConfig.brokerAvailability = .none
        defer { MSALGlobalConfig.brokerAvailability = .auto }
        #expect(Self.internalCode(config, app) == nil)
    }
}
