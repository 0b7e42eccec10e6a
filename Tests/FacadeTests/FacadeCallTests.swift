import DBusKit
import DeviceProcesses
import FacadeCore
import Foundation
import SharedDevice
import TestSupport
import Testing

/// The facades' one core: what a failure of the device reads as, and a call outside a device.
@Suite struct FacadeCallTests {
    @Test func aDeviceErrorIsARefusalByName() {
        let failure = DeviceFailure(
            DBusError(name: "dev.sdlab.Error.NoCurrentAccount", message: "no account is signed in"))
        #expect(failure.reason == .refused(.noCurrentAccount, message: "no account is signed in"))
        #expect(failure.deviceError == .noCurrentAccount)
    }

    @Test func anSDKsOwnRefusalHasNoDeviceError() {
        let failure = DeviceFailure(BrokerError.accountThatIsNone)
        #expect(failure.reason == .invalid(name: "InvalidAnswer", message: ""))
        #expect(failure.deviceError == nil)
    }

    @Test func theBrokersRefusalIsTheDevicesError() {
        let failure = DeviceFailure(BrokerError.refused(.offline))
        #expect(failure.reason == .refused(.offline, message: ""))
        #expect(failure.deviceError == .offline)
    }

    @Test func aBusErrorThatIsNotTheDevicesIsNoAnswer() {
        let failure = DeviceFailure(DBusError.noReply("the hub did not answer in time"))
        #expect(failure.reason == .unreachable(message: "the hub did not answer in time"))
        #expect(DeviceFailure(BrokerError.unreachable).reason == .unreachable(message: nil))
        // As an app's SDK answers it on the bus: unreachable too, not a refusal by that name.
        #expect(DeviceFailure(DBusError.device("HubUnreachable")).reason == .unreachable(message: nil))
    }

    @Test func moreThanOneAccountIsAmbiguous() {
        #expect(DeviceFailure(BrokerError.ambiguousAccount).reason == .ambiguousAccount)
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
        #expect(facade.error(BrokerError.ambiguousAccount).code == 1)
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

/// The blocking bridge on the thread that serves the bus, as an app's main thread does: the
/// answer can only arrive if the bridge serves the bus while it waits.
@Suite(.tags(.device), .devicesWanted, .timeLimit(.minutes(3)))
struct BlockingBridgeTests {
    @Test func aBlockingCallOnTheThreadThatServesTheBusIsAnswered() async throws {
        let directory = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-bridge")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bus = try await offPool { Result { () throws(LaunchError) in try BusDaemon.start(in: directory) } }.get()
        defer { bus.stop() }
        let (connection, answer, waited) = try await offPool {
            Result { () throws -> (Connection, String??, Duration) in
                let connection = try Connection.connect(to: bus.address, owner: .callingThread)
                let link = DeviceLink(
                    connection: connection, hub: .wellKnown, hubTimeout: .seconds(5), appName: "notes",
                    keychainFolder: directory, listener: AndroidListener())
                let call = Facade(errors: { $0.cause as NSError }).call(completingOn: .main, in: link)
                let start = ContinuousClock.now
                let answer = call.wait { try? await connection.nameOwner("org.freedesktop.DBus") }
                let waited = ContinuousClock.now - start
                // This thread ends here: the connection gets a thread of its own, to be closed.
                connection.handOffToOwnThread()
                return (connection, answer, waited)
            }
        }.get()
        await connection.close()
        #expect(answer == .some("org.freedesktop.DBus"))
        #expect(waited < .seconds(5), "answered, not timed out")
    }
}
