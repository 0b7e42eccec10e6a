import SharedDevice

/// An app's SDK checks as the host follows them: why each began, which were answered, and when
/// each may be told finished (once the app code its answer led to has returned and the app's
/// work in hand is done). A value: the host holds it under its lock, and tests drive it alone.
struct CheckLedger: Equatable {
    /// Why the app's next check happens: the latest opportunity the host gave it.
    var opportunity = CheckTrigger.launch
    /// How many checks began.
    private(set) var began = 0
    /// When the latest check began (CLOCK_MONOTONIC ns).
    private(set) var lastBegan: UInt64 = 0
    /// The triggers of the checks in flight, oldest first.
    private(set) var inFlight: [CheckTrigger] = []
    /// Checks answered whose end is not told yet, oldest first.
    private(set) var answered: [Answered] = []
    /// Work the app began that a check waits for (the built-in app's cleanups).
    var openWork = 0

    /// A check's end as the trace tells it.
    struct Answered: Equatable {
        var trigger: CheckTrigger
        var looked: Bool
        var codeReturned: Bool
    }

    /// The trigger of the oldest check in flight, else the opportunity.
    var current: CheckTrigger { inFlight.first ?? opportunity }

    /// No check in flight, every piece of app code one led to returned, the app's work done.
    var isIdle: Bool { answered.isEmpty && inFlight.isEmpty && openWork == 0 }

    /// A check began at `time`, because of the opportunity.
    mutating func begin(at time: UInt64) -> CheckTrigger {
        began += 1
        lastBegan = time
        inFlight.append(opportunity)
        return opportunity
    }

    /// The oldest check in flight was answered (or failed); `codeReturned`: no app code follows.
    mutating func answer(looked: Bool, codeReturned: Bool) {
        let trigger = inFlight.isEmpty ? opportunity : inFlight.removeFirst()
        answered.append(Answered(trigger: trigger, looked: looked, codeReturned: codeReturned))
    }

    /// The app code the oldest answer led to returned.
    mutating func codeReturned() {
        guard let index = answered.firstIndex(where: { !$0.codeReturned }) else { return }
        answered[index].codeReturned = true
    }

    /// The checks whose end can be told now, oldest first: none while the app's work is open.
    mutating func takeFinished() -> [Answered] {
        guard openWork == 0 else { return [] }
        let done = answered.prefix { $0.codeReturned }
        answered.removeFirst(done.count)
        return Array(done)
    }
}
