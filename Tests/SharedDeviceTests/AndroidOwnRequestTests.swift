import SharedDevice
import Testing

/// Docs/behaviour.md §5, the app's own sign-in and sign-out on MSAL Android: the client guards
/// both on the account persisted in the app, whatever the broker holds, and refuses before any
/// broker call.
@Suite struct AndroidOwnRequestTests {
    static let a = BrokerAccount(user: "cou1")
    static let b = BrokerAccount(user: "cou2")

    /// One line of the table: what the app persisted, whom the broker holds, the request; what
    /// the client decides, how the request ends, and whom the broker and the app then hold.
    struct Row: Sendable, CustomTestStringConvertible {
        var persisted: AndroidMSALAccountRule.Stored
        var broker: BrokerAccount?
        var request: AndroidMSALAccountRule.OwnRequest
        var decision: AndroidMSALAccountRule.Decision
        /// `signed in`, `signed out`, or the error's name.
        var outcome: String
        var brokerAfter: BrokerAccount?
        var persistedAfter: AndroidMSALAccountRule.Stored

        init(
            _ persisted: AndroidMSALAccountRule.Stored, _ broker: BrokerAccount?,
            _ request: AndroidMSALAccountRule.OwnRequest,
            _ decision: AndroidMSALAccountRule.Decision, _ outcome: String, _ brokerAfter: BrokerAccount?,
            _ persistedAfter: AndroidMSALAccountRule.Stored
        ) {
            (self.persisted, self.broker, self.request) = (persisted, broker, request)
            (self.decision, self.outcome, self.brokerAfter, self.persistedAfter) =
                (decision, outcome, brokerAfter, persistedAfter)
        }

        var testDescription: String {
            "\(request.rawValue), persisted \(persisted), broker \(broker?.username ?? "none")"
        }
    }

    static let ask = AndroidMSALAccountRule.Decision.askBroker
    static let invalidParameter = AndroidMSALAccountRule.Decision.refuse(.invalidParameter)
    static let noCurrentAccount = AndroidMSALAccountRule.Decision.refuse(.noCurrentAccount)

    /// Every sign-in is as cou2 (B). A sign-in goes on only with nothing persisted (a corrupt
    /// record reads as none); a sign-out only with an account persisted. Past the guard the
    /// broker decides: it refuses a second account (`AlreadySignedIn`), and signs out whoever
    /// is signed in, or refuses when nobody is (`NoCurrentAccount`).
    static let table: [Row] = [
        Row(.none, nil, .signIn, ask, "signed in", b, .account(b)),
        Row(.none, a, .signIn, ask, "AlreadySignedIn", a, .none),
        Row(.none, b, .signIn, ask, "AlreadySignedIn", b, .none),
        Row(.account(a), nil, .signIn, invalidParameter, "InvalidParameter", nil, .account(a)),
        Row(.account(a), a, .signIn, invalidParameter, "InvalidParameter", a, .account(a)),
        Row(.account(a), b, .signIn, invalidParameter, "InvalidParameter", b, .account(a)),
        Row(.corrupt, nil, .signIn, ask, "signed in", b, .account(b)),
        Row(.corrupt, a, .signIn, ask, "AlreadySignedIn", a, .corrupt),
        Row(.corrupt, b, .signIn, ask, "AlreadySignedIn", b, .corrupt),

        Row(.none, nil, .signOut, noCurrentAccount, "NoCurrentAccount", nil, .none),
        Row(.none, a, .signOut, noCurrentAccount, "NoCurrentAccount", a, .none),
        Row(.none, b, .signOut, noCurrentAccount, "NoCurrentAccount", b, .none),
        Row(.account(a), nil, .signOut, ask, "NoCurrentAccount", nil, .account(a)),
        Row(.account(a), a, .signOut, ask, "signed out", nil, .none),
        Row(.account(a), b, .signOut, ask, "signed out", nil, .none),
        Row(.corrupt, nil, .signOut, noCurrentAccount, "NoCurrentAccount", nil, .corrupt),
        Row(.corrupt, a, .signOut, noCurrentAccount, "NoCurrentAccount", a, .corrupt),
        Row(.corrupt, b, .signOut, noCurrentAccount, "NoCurrentAccount", b, .corrupt),
    ]

    /// A shared device, enrolled, with `account` signed in at the broker, or none.
    static func broker(holding account: BrokerAccount?) throws -> HubModel {
        var hub = HubModel()
        try hub.enroll(as: DirectoryUser(name: "stage", role: .staging))
        if let account { _ = try hub.checkOut(as: DirectoryUser(name: account.username)) }
        return hub
    }

    /// The request carried out as the app's SDK does: the client's decision first, then the
    /// broker's call, then what the client persists.
    static func carryOut(
        _ request: AndroidMSALAccountRule.OwnRequest, client: inout AndroidMSALAccountRule, hub: inout HubModel
    ) -> String {
        if case .refuse(let refusal) = client.decide(request) { return refusal.error.rawValue }
        do throws(DeviceError) {
            switch request {
            case .signIn:
                _ = try hub.signIn(as: DirectoryUser(name: b.username))
                client.signedInHere(as: b)
                return "signed in"
            case .signOut:
                guard let account = hub.currentAccount else { throw .noCurrentAccount }
                _ = try hub.signOut(homeAccountID: HubModel.homeAccountID(of: account))
                client.signedOutHere()
                return "signed out"
            }
        } catch {
            return error.rawValue
        }
    }

    @Test(arguments: table)
    func theGuardIsThePersistedAccount(row: Row) throws {
        var client = AndroidMSALAccountRule(stored: row.persisted)
        var hub = try Self.broker(holding: row.broker)
        #expect(client.decide(row.request) == row.decision)
        #expect(Self.carryOut(row.request, client: &client, hub: &hub) == row.outcome)
        #expect(hub.currentAccount == row.brokerAfter?.username)
        #expect(client.stored == row.persistedAfter)
    }

    @Test func theTableCoversEveryCase() {
        let stored: [AndroidMSALAccountRule.Stored] = [.none, .account(Self.a), .corrupt]
        for request in AndroidMSALAccountRule.OwnRequest.allCases {
            for persisted in stored {
                for broker in [nil, Self.a, Self.b] {
                    let rows = Self.table.filter {
                        $0.request == request && $0.persisted == persisted && $0.broker == broker
                    }
                    #expect(rows.count == 1, "\(request) \(persisted) \(broker?.username ?? "none")")
                }
            }
        }
    }

    @Test func aCorruptRecordReadsAsNone() {
        #expect(AndroidMSALAccountRule(stored: .corrupt).persistedAccount == nil)
        #expect(AndroidMSALAccountRule(stored: .none).persistedAccount == nil)
        #expect(AndroidMSALAccountRule(stored: .account(Self.a)).persistedAccount == Self.a)
    }

    /// The record moves only with the app's own checks, sign-ins and sign-outs: a check that
    /// sees the broker's account lets a sign-out through and stops a sign-in.
    @Test func aCheckBringsTheGuardUpToDate() throws {
        var client = AndroidMSALAccountRule()
        #expect(client.decide(.signOut) == Self.noCurrentAccount)
        _ = try client.getCurrentAccount(.success([Self.a]))
        #expect(client.decide(.signOut) == Self.ask)
        #expect(client.decide(.signIn) == Self.invalidParameter)
        _ = try client.getCurrentAccount(.success([]))
        #expect(client.decide(.signIn) == Self.ask)
        #expect(client.decide(.signOut) == Self.noCurrentAccount)
        _ = try client.getCurrentAccount(.success([Self.a]))
        client.signedOutHere()
        #expect(client.decide(.signIn) == Self.ask)
        client.signedInHere(as: Self.b)
        #expect(client.decide(.signIn) == Self.invalidParameter)
    }
}
