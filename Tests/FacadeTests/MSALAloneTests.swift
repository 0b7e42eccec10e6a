import MSAL
import Testing

// This file imports MSAL alone, as an app's sign-in screen does on iOS: UIKit's view controller,
// Foundation's URL and Dispatch's queues come with it.

/// A sign-in model written with Swift concurrency, on the main actor as screens are; MSAL
/// presents its page from the screen's view controller.
@MainActor
final class SignInModel {
    let application: MSALPublicClientApplication
    let screen: UIViewController
    let scopes = ["User.Read"]
    private(set) var account: MSALAccount?

    init(application: MSALPublicClientApplication, screen: UIViewController) {
        self.application = application
        self.screen = screen
    }

    func signIn() async throws -> String {
        let parameters = MSALInteractiveTokenParameters(
            scopes: scopes, webviewParameters: MSALWebviewParameters(authPresentationViewController: screen))
        parameters.promptType = .selectAccount
        parameters.account = account
        let result = try await application.acquireToken(with: parameters)
        account = result.account
        return result.accessToken
    }

    func tokenSilently() async throws -> String {
        guard let account else {
            let (current, _) = try await application.currentAccount(with: nil)
            guard let current else { throw MSALTestError.nobodySignedIn }
            self.account = current
            return try await tokenSilently()
        }
        let result = try await application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: scopes, account: account))
        return result.accessToken
    }

    func signOut() async throws -> Bool {
        guard let account else { return false }
        let parameters = MSALSignoutParameters(
            webviewParameters: MSALWebviewParameters(authPresentationViewController: screen))
        let signedOut = try await application.signout(with: account, signoutParameters: parameters)
        if signedOut { self.account = nil }
        return signedOut
    }

    /// The result left unused, as imported methods allow.
    func signOutEverywhere(_ account: MSALAccount) async throws {
        let parameters = MSALSignoutParameters(
            webviewParameters: MSALWebviewParameters(authPresentationViewController: screen))
        parameters.signoutFromBrowser = true
        try await application.signout(with: account, signoutParameters: parameters)
    }

    func isSharedDevice() async -> Bool {
        (try? await application.deviceInformation(with: nil))?.deviceMode == .shared
    }

    /// The completion-block form, next to the async one: each call finds its own.
    func signInTheOldWay(done: @escaping (NSError?) -> Void) {
        let parameters = MSALInteractiveTokenParameters(
            scopes: scopes, webviewParameters: MSALWebviewParameters(authPresentationViewController: screen))
        application.acquireToken(with: parameters) { result, error in
            DispatchQueue.main.async { done(result == nil ? error as NSError? : nil) }
        }
    }
}

enum MSALTestError: Error { case nobodySignedIn }

/// An app delegate of a scene-less app, as MSAL's samples write it: the broker's answer comes
/// as a URL, which MSAL may claim.
final class BrokerURLAppDelegate: UIResponder, UIApplicationDelegate {
    func application(
        _ app: UIApplication, open url: URL, options: [UIApplication.OpenURLOptionsKey: Any] = [:]
    ) -> Bool {
        MSALPublicClientApplication.handleMSALResponse(
            url, sourceApplication: options[.sourceApplication] as? String)
    }
}

/// Async MSAL outside a device: each async form throws what its completion block is handed.
@Suite struct AsyncMSALTests {
    static func code(_ error: any Error) -> (Int, Int?) {
        let error = error as NSError
        #expect(error.domain == MSALErrorDomain)
        return (error.code, error.userInfo[MSALInternalErrorCodeKey] as? Int)
    }

    static let brokerNotAvailable = (
        MSALError.internal.rawValue, Optional(MSALInternalError.brokerNotAvailable.rawValue)
    )

    @Test @MainActor func theAsyncFormsThrowWhatTheBlocksAreHanded() async throws {
        let model = SignInModel(
            application: try MSALPublicClientApplication(clientId: "contoso"), screen: UIViewController())
        let signIn = await #expect(throws: NSError.self) { try await model.signIn() }
        #expect(signIn.map(Self.code) ?? (0, nil) == Self.brokerNotAvailable)
        let silent = await #expect(throws: NSError.self) { try await model.tokenSilently() }
        #expect(silent.map(Self.code) ?? (0, nil) == Self.brokerNotAvailable)
        #expect(await model.isSharedDevice() == false)
        await #expect(throws: NSError.self) { try await model.signOutEverywhere(TestAccounts.cou1) }
        let blockError = await withCheckedContinuation { continuation in
            model.signInTheOldWay { continuation.resume(returning: $0) }
        }
        #expect(blockError.map(Self.code) ?? (0, nil) == Self.brokerNotAvailable)
    }

    /// MSAL refuses a silent request without an account before anything else: the app must
    /// sign in (interactionRequired), with or without a broker.
    @Test func aSilentRequestWithoutAnAccountNeedsInteraction() async throws {
        let application = try MSALPublicClientApplication(clientId: "contoso")
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: TestAccounts.cou1)
        parameters.account = nil
        let error = await #expect(throws: NSError.self) {
            _ = try await application.acquireTokenSilent(with: parameters)
        }
        #expect(error.map(Self.code)?.0 == MSALError.interactionRequired.rawValue)
    }

    /// The signed-out answer is a Bool, thrown away on an error.
    @Test func signOutThrowsWithoutABroker() async throws {
        let application = try MSALPublicClientApplication(clientId: "contoso")
        let account = TestAccounts.cou1
        let parameters = MSALSignoutParameters(
            webviewParameters: MSALWebviewParameters(authPresentationViewController: UIViewController()))
        let error = await #expect(throws: NSError.self) {
            let _: Bool = try await application.signout(with: account, signoutParameters: parameters)
        }
        #expect(error.map(Self.code) ?? (0, nil) == Self.brokerNotAvailable)
    }

    /// No sign-in waits for a URL on this device: MSAL claims none, the broker's redirect
    /// included, and leaves it to the app.
    @Test @MainActor func mSALClaimsNoURL() throws {
        let delegate = BrokerURLAppDelegate()
        let broker = try #require(URL(string: "msauth.com.contoso.notes://auth?response=abc"))
        #expect(
            !delegate.application(
                .shared, open: broker, options: [.sourceApplication: "com.microsoft.azureauthenticator"]))
        #expect(!delegate.application(.shared, open: broker))
        #expect(!MSALPublicClientApplication.handleMSALResponse(broker, sourceApplication: nil))
        #expect(!MSALPublicClientApplication.cancelCurrentWebAuthSession())
    }

    /// `account` belongs to the token parameters, interactive (a hint) as well as silent.
    @Test func theAccountIsEveryTokenRequests() {
        let interactive = MSALInteractiveTokenParameters(
            scopes: ["User.Read"],
            webviewParameters: MSALWebviewParameters(authPresentationViewController: UIViewController()))
        #expect(interactive.account == nil)
        let request: MSALTokenParameters = interactive
        request.account = TestAccounts.cou1
        #expect(interactive.account?.username == "cou1")
        let silent: MSALTokenParameters = MSALSilentTokenParameters(scopes: [], account: TestAccounts.cou1)
        #expect(silent.account == TestAccounts.cou1)
    }
}
