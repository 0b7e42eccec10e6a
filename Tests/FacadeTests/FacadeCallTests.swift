import DBusKit
import FacadeCore
import Foundation
import SharedDevice
import Testing

/// The facades' one core: what a failure of the device reads as, and a call outside a device.
@Suite struct FacadeCallTests {
    @Test func aDeviceErrorIsARefusalByName() {
        let failure = DeviceFailure(
            DBusError(name: "dev.sdlab.Error.NoCurrentAccount", message: "no account is signed in"))
        #expect(failure.reason == .refused(name: "NoCurrentAccount", message: "no account is signed in"))
        #expect(failure.deviceError == .noCurrentAccount)
    }

    @Test func anSDKsOwnRefusalHasNoDeviceError() {
        let failure = DeviceFailure(SharedDevice.MSALError.broker("InvalidAnswer"))
        #expect(failure.reason == .refused(name: "InvalidAnswer", message: ""))
        #expect(failure.deviceError == nil)
    }

    @Test func aBusErrorThatIsNotTheDevicesIsNoAnswer() {
        let failure = DeviceFailure(DBusError.noReply("the hub did not answer in time"))
        #expect(failure.reason == .unreachable(message: "the hub did not answer in time"))
        #expect(
            DeviceFailure(SharedDevice.MSALError.broker(WorkspaceOneSDK.hubUnreachableError)).reason
                == .unreachable(message: nil))
    }

    @Test func moreThanOneAccountIsAmbiguous() {
        #expect(DeviceFailure(SharedDevice.MSALError.ambiguousAccount).reason == .ambiguousAccount)
    }

    @Test func anythingElseIsDescribedAndKeptAsThrown() {
        struct Odd: Error, CustomStringConvertible { var description: String { "odd" } }
        let failure = DeviceFailure(Odd())
        #expect(failure.reason == .unexpected("odd"))
        #expect(failure.cause is Odd)
        #expect(DeviceFailure(failure).cause is Odd, "a failure read again keeps what was thrown")
    }

    @Test func aFacadesTableSpellsEachFailure() {
        let facade = Facade { failure in
            NSError(domain: "table", code: failure.reason == .ambiguousAccount ? 1 : 2)
        }
        #expect(facade.error(SharedDevice.MSALError.ambiguousAccount).code == 1)
        #expect(facade.call(completingOn: .main).error(DBusError.failed("no")).code == 2)
    }

    @Test func outsideADeviceTheAnswerRunsOnTheQueueAndNothingElse() async throws {
        try #require(DeviceLink.current == nil, "no test in this process joins a device")
        let queue = DispatchQueue(label: "completion")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let call = Facade { _ in NSError(domain: "table", code: 0) }.call(completingOn: queue)
        let onQueue: Bool = await withCheckedContinuation { continuation in
            #expect(call.device { continuation.resume(returning: DispatchQueue.getSpecific(key: key) == true) } == nil)
        }
        #expect(onQueue)
        call.run { Issue.record("nothing runs without a device") }
        #expect(call.wait { 1 } == nil)
    }
}
