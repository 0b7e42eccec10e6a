import DeviceContract
import Foundation
import Testing

@testable import DeviceHost

/// How the host follows an app's checks: each is told finished in the order it began, once the
/// app code its answer led to has returned and no work of the app is open.
@Suite struct CheckLedgerTests {
    @Test func aCheckIsFinishedOnceItsCodeReturned() {
        var ledger = CheckLedger()
        ledger.opportunity = .signal
        #expect(ledger.begin(at: 7) == .signal)
        #expect(ledger.began == 1 && ledger.lastBegan == 7 && ledger.current == .signal)
        ledger.answer(looked: true, codeReturned: false)
        #expect(ledger.takeFinished().isEmpty, "its app code has not returned")
        #expect(!ledger.isIdle)
        ledger.codeReturned()
        #expect(ledger.takeFinished() == [.init(trigger: .signal, looked: true, codeReturned: true)])
        #expect(ledger.isIdle)
    }

    @Test func checksFinishInTheOrderTheyBegan() {
        var ledger = CheckLedger()
        ledger.opportunity = .launch
        _ = ledger.begin(at: 1)
        ledger.opportunity = .foreground
        _ = ledger.begin(at: 2)
        #expect(ledger.current == .launch, "the oldest in flight")
        ledger.answer(looked: true, codeReturned: false)
        ledger.answer(looked: false, codeReturned: true)
        #expect(ledger.takeFinished().isEmpty, "the second waits for the first")
        ledger.codeReturned()
        #expect(ledger.takeFinished().map(\.trigger) == [.launch, .foreground])
    }

    @Test func openWorkHoldsEveryEnd() {
        var ledger = CheckLedger()
        _ = ledger.begin(at: 1)
        ledger.openWork += 1
        ledger.answer(looked: true, codeReturned: true)
        #expect(ledger.takeFinished().isEmpty && !ledger.isIdle)
        ledger.openWork -= 1
        #expect(ledger.takeFinished().count == 1 && ledger.isIdle)
    }

    @Test func anAnswerWithNoCheckInFlightIsTheOpportunitys() {
        var ledger = CheckLedger()
        ledger.opportunity = .resume
        ledger.answer(looked: false, codeReturned: true)
        #expect(ledger.takeFinished().map(\.trigger) == [.resume])
    }
}

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
