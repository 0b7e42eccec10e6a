import DBusKit
import DeviceContract
import DeviceTestKit
import Foundation
import SDKClients
import SharedDevice
import Synchronization
import TestSupport
import Testing

/// `getCurrentAccount` calls in flight at once (a post and a return to the foreground): MSAL
/// reads the last-seen account when a call begins, so all report a change they overlap
/// (Docs/behaviour.md §4). The client asks the broker one question at a time: calls begun
/// while one is out share the next.
@Suite(.tags(.device), .devicesWanted, .serialized, .timeLimit(.minutes(3)))
struct OverlappingCallsTests {
    /// A broker that counts `GetAccounts` calls and answers each, with cou2, only once let.
    final class HeldBroker: Sendable {
        private struct State {
            var arrived = 0
            var arrivals: [CheckedContinuation<Void, Never>] = []
            var held: [CheckedContinuation<Void, Never>] = []
            var open = false
        }
        private let state = Mutex(State())

        var calls: Int { state.withLock { $0.arrived } }

        func answer() async -> [DBusValue] {
            await withCheckedContinuation { continuation in
                let (arrivals, go) = state.withLock { state in
                    state.arrived += 1
                    defer { state.arrivals = [] }
                    if !state.open { state.held.append(continuation) }
                    return (state.arrivals, state.open)
                }
                for waiter in arrivals { waiter.resume() }
                if go { continuation.resume() }
            }
            return [.array(element: "a{sv}", [BrokerAccount(user: "cou2").wireValue])]
        }

        /// Returns once a call has arrived.
        func firstCall() async {
            await withCheckedContinuation { continuation in
                let arrived = state.withLock { state in
                    if state.arrived == 0 { state.arrivals.append(continuation) }
                    return state.arrived > 0
                }
                if arrived { continuation.resume() }
            }
        }

        /// Answers the calls held and every later one at once.
        func open() {
            let held = state.withLock { state in
                state.open = true
                defer { state.held = [] }
                return state.held
            }
            for call in held { call.resume() }
        }
    }

    /// The answers of calls begun at once (each begins before `begin` returns), as an app
    /// records them.
    struct Answers: Sendable {
        private let stream: AsyncStream<String>
        private let continuation: AsyncStream<String>.Continuation

        init() { (stream, continuation) = AsyncStream<String>.makeStream() }

        func begin(_ count: Int, on client: MSALBrokerClient) {
            for _ in 0..<count {
                client.getCurrentAccount { answer, _ in
                    switch answer {
                    case .success(let result): continuation.yield(result.callback.description)
                    case .failure(let error): continuation.yield("error \(error.label)")
                    }
                }
            }
        }

        /// The next `count` answers, each within 10 s.
        func next(_ count: Int) async throws -> [String] {
            var answers: [String] = []
            for _ in 0..<count { answers.append(try await TestSupport.next(stream)) }
            return answers
        }
    }

    @Test func callsInFlightAcrossAChangeAllReportItAndShareOneQuestion() async throws {
        try await InProcessDevice.with { device in
            try await device.enrollAndCheckOut("cou1")
            // A question held longer than the hub's timeout would end unanswered and be asked
            // again: a loaded machine must not make the held question time out.
            let client = MSALBrokerClient(
                connection: try await device.connection(), clientID: "mail", keychain: try device.keychain("mail"),
                timeout: .seconds(50))
            #expect(try await MSALBrokerClientTests.current(client) == "current-account(cou1,none)")

            await device.stopHub()
            let broker = HeldBroker()
            let hub = try await device.connection()
            try hub.export(
                [
                    DBusInterface(
                        BrokerMethod.interface,
                        methods: [
                            .init(BrokerMethod.getAccounts.rawValue, out: [.init("accounts", "aa{sv}")]) { _ in
                                await broker.answer()
                            }
                        ])
                ], at: DeviceBus.hubPath)
            #expect(try await hub.requestName(DeviceBus.hubName) == .primaryOwner)

            let answers = Answers()
            answers.begin(1, on: client)
            try await withTimeout(.seconds(10), "the broker asked") { await broker.firstCall() }
            answers.begin(5, on: client)
            broker.open()

            #expect(try await answers.next(6) == Array(repeating: "current-account(cou2,cou1)", count: 6))
            #expect(broker.calls == 2, "the first call's question, then one for the five begun while it was out")
            #expect(
                try device.keychain("mail").item("msal-last-seen-account", as: BrokerAccount.self)
                    == BrokerAccount(user: "cou2"))
        }
    }
}
