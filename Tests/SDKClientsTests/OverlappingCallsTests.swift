import DBusKit
import DeviceContract
import Foundation
import SDKClients
import SharedDevice
import Synchronization
import TestSupport
import Testing

/// Two `getCurrentAccount` calls in flight at once (a post and a return to the foreground):
/// MSAL reads the last-seen account when a call begins, so both report a change they overlap
/// (Docs/behaviour.md §4).
@Suite(.tags(.device), .devicesWanted, .serialized, .timeLimit(.minutes(1)))
struct OverlappingCallsTests {
    /// Answers `GetAccounts` with cou2 only once `expected` calls have arrived, so that they
    /// are all in flight at once.
    final class Rendezvous: Sendable {
        private let expected: Int
        private let waiters = Mutex<[CheckedContinuation<Void, Never>]>([])

        init(expected: Int) { self.expected = expected }

        func arrive() async {
            await withCheckedContinuation { continuation in
                let everyone = waiters.withLock { waiters -> [CheckedContinuation<Void, Never>] in
                    waiters.append(continuation)
                    guard waiters.count == expected else { return [] }
                    defer { waiters = [] }
                    return waiters
                }
                for waiter in everyone { waiter.resume() }
            }
        }
    }

    @Test func twoCallsInFlightAcrossAChangeBothReportIt() async throws {
        try await TestDevice.with { device in
            try await device.enrollAndCheckOut("cou1")
            let client = try await MSALPublicClientTests.client(device)
            #expect(try await MSALPublicClientTests.current(client) == "current-account(cou1,none)")

            await device.stopHub()
            let rendezvous = Rendezvous(expected: 2)
            let hub = try await device.appConnection()
            try hub.export(
                [
                    DBusInterface(
                        BrokerMethod.interface,
                        methods: [
                            .init(BrokerMethod.getAccounts.rawValue, out: [.init("accounts", "aa{sv}")]) { _ in
                                await rendezvous.arrive()
                                return [.array(element: "a{sv}", [BrokerAccount(user: "cou2").wireValue])]
                            }
                        ])
                ], at: DeviceBus.hubPath)
            #expect(try await hub.requestName(DeviceBus.hubName) == .primaryOwner)

            async let first = MSALPublicClientTests.current(client)
            async let second = MSALPublicClientTests.current(client)
            #expect(try await [first, second] == ["current-account(cou2,cou1)", "current-account(cou2,cou1)"])
            #expect(
                try device.keychain("mail").item("msal-last-seen-account", as: BrokerAccount.self)
                    == BrokerAccount(user: "cou2"))
        }
    }
}
