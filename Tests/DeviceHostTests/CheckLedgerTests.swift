import SharedDevice
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
