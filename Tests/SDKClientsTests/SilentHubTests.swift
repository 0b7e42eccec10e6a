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

/// A hub that holds its name but never answers (hung, or stopped by SIGSTOP): every SDK call
/// waits at most its timeout, then counts as unreachable and changes nothing (Docs/behaviour.md §7).
@Suite(.tags(.device), .devicesWanted, .serialized, .timeLimit(.minutes(3)))
struct SilentHubTests {
    /// Released at the end of a test, so the unanswered calls end too.
    final class Gate: Sendable {
        private struct State {
            var released = false
            var waiters: [CheckedContinuation<Void, Never>] = []
        }
        private let state = Mutex(State())

        func release() {
            let waiters = state.withLock { state in
                state.released = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }

        /// Returns once released.
        func passed() async {
            await withCheckedContinuation { continuation in
                let open = state.withLock { state in
                    if !state.released { state.waiters.append(continuation) }
                    return state.released
                }
                if open { continuation.resume() }
            }
        }
    }

    static let timeout = Duration.milliseconds(300)

    /// Stops the device's hub and puts in its place one that takes the calls an SDK makes and
    /// answers none of them until `gate` is released.
    static func withSilentHub(_ device: InProcessDevice, _ body: () async throws -> Void) async throws {
        await device.stopHub()
        let gate = Gate()
        let silent = try await device.connection()
        let hang: @Sendable (DBusInterface.Call) async throws -> [DBusValue] = { _ in
            await gate.passed()
            throw DBusError.failed("released")
        }
        try silent.export(
            [
                DBusInterface(
                    HubMethod.interface,
                    methods: [.init(HubMethod.getSession.rawValue, out: [.init("session", "(sst)")], async: hang)]),
                DBusInterface(
                    BrokerMethod.interface,
                    methods: [.init(BrokerMethod.getAccounts.rawValue, out: [.init("accounts", "aa{sv}")], async: hang)]
                ),
            ], at: DeviceBus.hubPath)
        #expect(try await silent.requestName(DeviceBus.hubName) == .primaryOwner)
        defer { gate.release() }
        try await body()
    }

    @Test func msalGetsHubUnreachableWithinItsTimeout() async throws {
        try await InProcessDevice.with { device in
            try await device.enrollAndCheckOut("cou1")
            let keychain = try device.keychain("mail")
            let client = MSALBrokerClient(
                connection: try await device.connection(), clientID: "mail", keychain: keychain,
                timeout: Self.timeout)
            #expect(try await client.getCurrentAccount().get().callback.description == "current-account(cou1,none)")
            try await Self.withSilentHub(device) { () async throws in
                let started = ContinuousClock.now
                #expect(await client.getCurrentAccount() == .failure(.unreachable))
                #expect(ContinuousClock.now - started < .seconds(5))
            }
            #expect(keychain.item("msal-last-seen-account", as: BrokerAccount.self) == BrokerAccount(user: "cou1"))
        }
    }

    @Test func androidGetsHubUnreachableWithinItsTimeout() async throws {
        try await InProcessDevice.with { device in
            try await device.enrollAndCheckOut("cou1")
            let client = AndroidMSALBrokerClient(
                connection: try await device.connection(), clientID: "scanner",
                keychain: try device.keychain("scanner"), timeout: Self.timeout)
            try await Self.withSilentHub(device) { () async throws in
                #expect(try await client.getCurrentAccount() == .failure(.unreachable))
            }
            #expect(
                !FileManager.default.fileExists(
                    atPath: RunFolder.container(of: "scanner", in: device.directory)
                        + "/keychain/msal-android-current-account.json"))
        }
    }

    @Test func workspaceOneBlocksAtLaunchWithinItsTimeout() async throws {
        try await InProcessDevice.with { device in
            try await device.enrollAndCheckOut("cou1")
            let controller = WorkspaceOneController(
                connection: try await device.connection(), keychain: try device.keychain("crm"),
                timeout: Self.timeout)
            try await Self.withSilentHub(device) { () async throws in
                let detection = await controller.start()
                #expect(
                    detection.effects == [
                        .callback(.initialCheck(error: WorkspaceOneSessionRule.hubUnreachableError)), .block,
                    ])
                #expect(detection.session == nil)
            }
            #expect(
                !FileManager.default.fileExists(
                    atPath: RunFolder.container(of: "crm", in: device.directory) + "/keychain/ws1-last-session.json"))
        }
    }
}
