import MSAL
import Testing

/// A B2C sign-in helper of the kind Microsoft's samples show: an authority per user flow, and
/// the signed-in account looked up with enumeration parameters.
enum B2CAccounts {
    static let tenant = "contosob2c"

    static func authority(forPolicy policy: String) throws -> MSALB2CAuthority {
        guard let url = URL(string: "https://\(tenant).b2clogin.com/tfp/\(tenant).onmicrosoft.com/\(policy)") else {
            throw MSALTestError.nobodySignedIn
        }
        return try MSALB2CAuthority(url: url)
    }

    static func signedInAccounts(
        of application: MSALPublicClientApplication, completion: @escaping ([MSALAccount], Error?) -> Void
    ) {
        let parameters = MSALAccountEnumerationParameters()
        parameters.returnOnlySignedInAccounts = true
        application.accountsFromDevice(for: parameters) { accounts, error in
            completion(accounts ?? [], error)
        }
    }
}

@Suite struct B2CAccountsTests {
    @Test func aB2CAuthorityConfiguresTheApplication() throws {
        let authority = try B2CAccounts.authority(forPolicy: "B2C_1_signin")
        let configuration = MSALPublicClientApplicationConfig(
            clientId: "contoso-b2c", redirectUri: nil, authority: authority)
        configuration.knownAuthorities = [authority]
        #expect(configuration.authority.url.path.hasSuffix("/B2C_1_signin"))
        #expect(configuration.authority is MSALB2CAuthority)
    }

    /// Outside a device there is no broker: the enumeration fails as MSAL does without one.
    @Test func enumeratingAccountsWithoutABrokerFails() async throws {
        let application = try MSALPublicClientApplication(clientId: "contoso-b2c")
        let (accounts, error) = await withCheckedContinuation { continuation in
            B2CAccounts.signedInAccounts(of: application) { continuation.resume(returning: ($0.count, $1)) }
        }
        #expect(accounts == 0)
        let nsError = try #require(error as NSError?)
        #expect(nsError.domain == MSALErrorDomain && nsError.code == MSALError.internal.rawValue)
        await #expect(throws: (any Error).self) {
            _ = try await application.accountsFromDevice(for: MSALAccountEnumerationParameters(identifier: nil)).count
        }
    }
}
