import Foundation
import Testing

@testable import DeviceHost

/// The records an app is handed are numbered per user and kind, and the numbers outlive it.
@Suite struct RecordLedgerTests {
    @Test func recordsAreNumberedAfterThoseHandedBefore() throws {
        var ledger = RecordLedger()
        let first = ledger.hand(2, of: .plain, to: "cou1", app: "mail")
        let next = ledger.hand(1, of: .plain, to: "cou1", app: "mail")
        let other = ledger.hand(1, of: .sensitive, to: "cou1", app: "mail")
        #expect(first.map(\.canary) == ["SDLAB-CANARY/cou1/mail/plain/1", "SDLAB-CANARY/cou1/mail/plain/2"])
        #expect(next.map(\.canary) == ["SDLAB-CANARY/cou1/mail/plain/3"])
        #expect(other.map(\.canary) == ["SDLAB-CANARY/cou1/mail/sensitive/1"])
        #expect(first[0].text == "SDLAB-CANARY/cou1/mail/plain/1 plain record of cou1")
        let reloaded = try JSONDecoder().decode(RecordLedger.self, from: JSONEncoder().encode(ledger))
        var again = reloaded
        #expect(again.hand(1, of: .plain, to: "cou1", app: "mail").map(\.canary) == ["SDLAB-CANARY/cou1/mail/plain/4"])
    }
}
