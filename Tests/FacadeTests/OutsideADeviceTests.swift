import AWSDK
import FacadeCore
import Foundation
import MSAL
import Testing

/// The facades used outside a device (no host installed a link in this test process) answer
/// as the real SDKs do when their broker or server is missing.
@Suite struct OutsideADeviceTests {
    @Test func msalAnswersBrokerNotAvailable() async throws {
        try #require(DeviceLink.current == nil, "no test in this process joins a device")
        let application = try MSALPublicClientApplication(clientId: "contoso")
        let parameters = MSALParameters()
        parameters.completionBlockQueue = DispatchQueue(label: "completion")
        let error: NSError = await withCheckedContinuation { continuation in
            application.getCurrentAccount(with: parameters) { current, previous, error in
                #expect(current == nil && previous == nil)
                continuation.resume(returning: error! as NSError)
            }
        }
        #expect(error.domain == MSALErrorDomain)
        #expect(error.code == MSALError.internal.rawValue)
        #expect(error.userInfo[MSALInternalErrorCodeKey] as? Int == MSALInternalError.brokerNotAvailable.rawValue)
        #expect(throws: NSError.self) { try application.allAccounts() }
    }

    @Test func msalDeviceInformationIsDefaultWithTheError() async throws {
        try #require(DeviceLink.current == nil)
        let application = try MSALPublicClientApplication(clientId: "contoso")
        let (mode, code): (MSALDeviceMode?, Int?) = await withCheckedContinuation { continuation in
            application.getDeviceInformation(with: nil) { information, error in
                continuation.resume(returning: (information?.deviceMode, (error as NSError?)?.code))
            }
        }
        #expect(mode == .default && code == MSALError.internal.rawValue)
    }

    @Test func theInteractiveSignInWithoutABrokerFailsOnTheMainQueue() async throws {
        try #require(DeviceLink.current == nil)
        let application = try MSALPublicClientApplication(clientId: "contoso")
        let parameters = MSALInteractiveTokenParameters(
            scopes: ["User.Read"], webviewParameters: MSALWebviewParameters(authPresentationViewController: NSObject()))
        let code: Int? = await withCheckedContinuation { continuation in
            application.acquireToken(with: parameters) { result, error in
                #expect(result == nil)
                continuation.resume(returning: (error as NSError?)?.code)
            }
        }
        #expect(code == MSALError.internal.rawValue)
    }
}
