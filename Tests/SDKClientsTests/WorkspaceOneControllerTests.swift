import DBusKit
import DeviceContract
import DeviceProcesses
import DeviceTestKit
import Foundation
import SDKClients
import SharedDevice
import Synchronization
import TestSupport
import Testing

/// The delegate of a Workspace ONE app: what it was told, in order. At `wipe` it notes whether
/// the SDK's data key was still in the keychain.
final class RecordingDelegate: WorkspaceOneControllerDelegate {
    let keychain: Keychain
    private let told = Mutex<[String]>([])

    init(keychain: Keychain) { self.keychain = keychain }

    var heard: [String] { told.withLock { $0 } }

    func controllerDidWipeCurrentUserData() async {
        let keyLeft = keychain.existingKey(WorkspaceOneController.dataKeyName) != nil
        told.withLock { $0.append(keyLeft ? "wipe (data key still there)" : "wipe") }
    }

    func controllerDidDetectUserChange() async { told.withLock { $0.append("user-changed") } }

    func controllerDidFinishInitialCheck(error: String?) async {
        told.withLock { $0.append(error.map { "initial-check(\($0))" } ?? "initial-check") }
    }
}

/// The Workspace ONE SDK (Docs/behaviour.md §6) against the real hub on a private bus.
@Suite(.tags(.device), .devicesWanted, .serialized, .timeLimit(.minutes(3)))
struct WorkspaceOneControllerTests {
    /// An app's controller with its delegate (a launch: a new controller on a new connection).
    static func launch(_ device: InProcessDevice, app: String = "crm") async throws -> (
        WorkspaceOneController, RecordingDelegate
    ) {
        let keychain = try device.keychain(app)
        let delegate = RecordingDelegate(keychain: keychain)
        let controller = WorkspaceOneController(
            connection: try await device.connection(), keychain: keychain, delegate: delegate)
        return (controller, delegate)
    }

    static let dataKey = WorkspaceOneController.dataKeyName
    static let notCheckedOut = WorkspaceOneSessionRule.notCheckedOutError

    static func lastSessionFile(_ device: InProcessDevice, app: String = "crm") -> String {
        RunFolder.container(of: app, in: device.directory) + "/keychain/ws1-last-session.json"
    }

    @Test func theFirstLaunchAdoptsTheSessionWithoutWipe() async throws {
        try await InProcessDevice.with { device in
            try await device.enrollAndCheckOut("cou1")
            let (controller, delegate) = try await Self.launch(device)
            let detection = await controller.start()
            #expect(detection.effects == [.callback(.initialCheck(error: nil))])
            #expect(detection.session == Session(state: .checkedOut, user: "cou1", generation: 1))
            #expect(detection.taken)
            #expect(delegate.heard == ["initial-check"])
            #expect(await !controller.isBlocked)
            #expect(FileManager.default.fileExists(atPath: Self.lastSessionFile(device)))

            // Nothing changed: a foreground reports nothing.
            let foreground = await controller.applicationWillEnterForeground()
            #expect(foreground.effects.isEmpty && foreground.taken)
            #expect(delegate.heard == ["initial-check"])
        }
    }

    @Test func checkInThenForegroundWipesAfterDeletingTheDataKey() async throws {
        try await InProcessDevice.with { device in
            try await device.enrollAndCheckOut("cou1")
            let (controller, delegate) = try await Self.launch(device)
            _ = await controller.start()
            _ = try await controller.dataKey()
            let keychain = try device.keychain("crm")
            #expect(keychain.existingKey(Self.dataKey) != nil)

            try await device.checkIn()
            let detection = await controller.applicationWillEnterForeground()
            #expect(detection.effects == [.deleteDataKeys, .callback(.wipe), .block])
            #expect(detection.session == Session(state: .checkedIn, user: nil, generation: 2))
            #expect(delegate.heard == ["initial-check", "wipe"], "the key was gone before wipe")
            #expect(keychain.existingKey(Self.dataKey) == nil)
            #expect(await controller.isBlocked)
        }
    }

    /// A keychain that cannot be written (here a folder planted where the save writes) does not
    /// hold back `wipe`: the SDK acts on what it saw, reports the failure, and saves next time.
    @Test func aKeychainThatCannotBeWrittenStillWipesAndSavesAtTheNextOpportunity() async throws {
        try await InProcessDevice.with { device in
            try await device.enrollAndCheckOut("cou1")
            let (controller, delegate) = try await Self.launch(device)
            _ = await controller.start()
            let saved = try Data(contentsOf: URL(fileURLWithPath: Self.lastSessionFile(device)))
            try await device.checkIn()
            try await device.checkOut("cou2")
            let blocker = Self.lastSessionFile(device) + ".swap"
            try? FileManager.default.removeItem(atPath: blocker)
            try FileManager.default.createDirectory(atPath: blocker, withIntermediateDirectories: false)
            let failed = await controller.applicationWillEnterForeground()
            #expect(failed.effects == [.deleteDataKeys, .callback(.wipe), .callback(.userChanged)])
            #expect(failed.keychainFailure != nil)
            #expect(delegate.heard == ["initial-check", "wipe", "user-changed"])
            #expect(try Data(contentsOf: URL(fileURLWithPath: Self.lastSessionFile(device))) == saved)

            try FileManager.default.removeItem(atPath: blocker)
            let next = await controller.applicationWillEnterForeground()
            #expect(next.effects.isEmpty && next.keychainFailure == nil, "nothing new, and the write went through")
            let relaunched = try await Self.launch(device).0
            #expect(
                await relaunched.start().effects == [.callback(.initialCheck(error: nil))], "cou2's session was saved")
        }
    }

    @Test func sameUserAfterACheckInIsANewSession() async throws {
        try await InProcessDevice.with { device in
            try await device.enrollAndCheckOut("cou1")
            let (controller, delegate) = try await Self.launch(device)
            _ = await controller.start()
            try await device.checkIn()
            try await device.checkOut("cou1")
            let detection = await controller.applicationWillEnterForeground()
            #expect(detection.effects == [.deleteDataKeys, .callback(.wipe), .callback(.userChanged)])
            #expect(delegate.heard == ["initial-check", "wipe", "user-changed"])
            #expect(await !controller.isBlocked)
            #expect(try await controller.userInformation()["userName"] == "cou1")
        }
    }

    @Test func manyChangesBetweenOpportunitiesGiveOneOfEach() async throws {
        try await InProcessDevice.with { device in
            try await device.enrollAndCheckOut("cou1")
            let (controller, delegate) = try await Self.launch(device)
            _ = await controller.start()
            for user in ["cou2", "stage", "cou1", "cou2"] {
                try await device.checkIn()
                try await device.checkOut(user)
            }
            _ = await controller.applicationWillEnterForeground()
            #expect(delegate.heard == ["initial-check", "wipe", "user-changed"])
        }
    }

    @Test func aChangeSeenAtTheNextLaunch() async throws {
        try await InProcessDevice.with { device in
            try await device.enrollAndCheckOut("cou1")
            _ = try await Self.launch(device).0.start()
            try await device.checkIn()
            try await device.checkOut("cou2")
            let (relaunched, delegate) = try await Self.launch(device)
            let detection = await relaunched.start()
            #expect(
                detection.effects == [
                    .deleteDataKeys, .callback(.wipe), .callback(.userChanged), .callback(.initialCheck(error: nil)),
                ])
            #expect(delegate.heard == ["wipe", "user-changed", "initial-check"])
            #expect(try await relaunched.userInformation()["userName"] == "cou2")
        }
    }

    @Test func aCheckedInLaunchBlocksAndABlockedForegroundIsNoOpportunity() async throws {
        try await InProcessDevice.with { device in
            try await device.enroll()
            let (controller, delegate) = try await Self.launch(device)
            let detection = await controller.start()
            #expect(detection.effects == [.callback(.initialCheck(error: Self.notCheckedOut)), .block])
            #expect(delegate.heard == ["initial-check(\(Self.notCheckedOut))"])
            #expect(await controller.isBlocked)

            // Someone checks out: the blocked app does not look until it is launched again.
            try await device.checkOut("cou1")
            let foreground = await controller.applicationWillEnterForeground()
            #expect(!foreground.taken && foreground.effects.isEmpty && foreground.session == nil)
            #expect(await controller.isBlocked)
            #expect(delegate.heard.count == 1)
            #expect(
                await refusal { _ = try await controller.userInformation() }
                    == DeviceError.notInitialised.dbusError.name)

            // The next launch takes the session: no wipe (the checked-in session it saw had no user).
            let (relaunched, heardAgain) = try await Self.launch(device)
            #expect(
                await relaunched.start().effects == [.callback(.userChanged), .callback(.initialCheck(error: nil))])
            #expect(heardAgain.heard == ["user-changed", "initial-check"])
            #expect(await !relaunched.isBlocked)
        }
    }

    @Test func userInformationOnlyOnceInitialised() async throws {
        try await InProcessDevice.with { device in
            try await device.enrollAndCheckOut("cou1")
            let (controller, _) = try await Self.launch(device)
            #expect(
                await refusal { _ = try await controller.userInformation() }
                    == DeviceError.notInitialised.dbusError.name)
            _ = await controller.start()
            let information = try await controller.userInformation()
            #expect(information["userName"] == "cou1")
            #expect(information["domain"] == "sdlab.test")
            #expect(information["userIdentifier"] == "sdlab.test/cou1")
            #expect(information["groupID"] == "frontline")
            #expect(
                Set(information.keys) == [
                    "userName", "groupID", "email", "firstName", "lastName", "domain", "userIdentifier",
                ])
        }
    }

    @Test func deviceStaging() async throws {
        try await InProcessDevice.with { device in
            let (controller, _) = try await Self.launch(device)
            #expect(try await !controller.isDeviceStagingEnabled())
            try await device.enroll()
            #expect(try await controller.isDeviceStagingEnabled())
        }
    }

    @Test func anEnterpriseWipeOfACheckedInDeviceIsAWipe() async throws {
        try await InProcessDevice.with { device in
            try await device.enroll()
            let (controller, delegate) = try await Self.launch(device)
            _ = await controller.start()
            try await device.console.callHub(HubMethod.enterpriseWipe, timeout: .seconds(10))
            let (relaunched, heardAgain) = try await Self.launch(device)
            #expect(
                await relaunched.start().effects
                    == [.deleteDataKeys, .callback(.wipe), .callback(.initialCheck(error: Self.notCheckedOut)), .block])
            #expect(delegate.heard == ["initial-check(\(Self.notCheckedOut))"])
            #expect(heardAgain.heard == ["wipe", "initial-check(\(Self.notCheckedOut))"])
        }
    }

    @Test func anUnreachableHubAtAForegroundChangesNothing() async throws {
        try await InProcessDevice.with { device in
            try await device.enrollAndCheckOut("cou1")
            let (controller, delegate) = try await Self.launch(device)
            _ = await controller.start()
            _ = try await controller.dataKey()
            let saved = try #require(FileIdentity(Self.lastSessionFile(device)))

            try await device.checkIn()
            await device.stopHub()
            let detection = await controller.applicationWillEnterForeground()
            #expect(detection.taken && detection.effects.isEmpty && detection.session == nil)
            #expect(delegate.heard == ["initial-check"])
            #expect(await !controller.isBlocked)
            #expect(try device.keychain("crm").existingKey(Self.dataKey) != nil)
            #expect(FileIdentity(Self.lastSessionFile(device)) == saved)

            // Once the hub answers again, the next opportunity sees the check-in.
            try await device.startHub()
            #expect(
                await controller.applicationWillEnterForeground().effects == [
                    .deleteDataKeys, .callback(.wipe), .block,
                ])
        }
    }

    @Test func anUnreachableHubAtLaunchBlocksAndChangesNothing() async throws {
        try await InProcessDevice.with { device in
            try await device.enrollAndCheckOut("cou1")
            _ = try await Self.launch(device).0.start()
            let saved = try #require(FileIdentity(Self.lastSessionFile(device)))
            await device.stopHub()

            let (controller, delegate) = try await Self.launch(device)
            let detection = await controller.start()
            #expect(
                detection.effects == [
                    .callback(.initialCheck(error: WorkspaceOneSessionRule.hubUnreachableError)), .block,
                ])
            #expect(detection.session == nil)
            #expect(delegate.heard == ["initial-check(HubUnreachable)"])
            #expect(await controller.isBlocked)
            #expect(FileIdentity(Self.lastSessionFile(device)) == saved)
            #expect(
                await refusal { _ = try await controller.userInformation() }
                    == DeviceError.notInitialised.dbusError.name)

            // Launched again with the hub back: the same session, adopted without wipe.
            try await device.startHub()
            let (relaunched, heardAgain) = try await Self.launch(device)
            #expect(await relaunched.start().effects == [.callback(.initialCheck(error: nil))])
            #expect(heardAgain.heard == ["initial-check"])
        }
    }
}
