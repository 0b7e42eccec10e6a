/// Who waits for an app to settle, by number: each resumed when it settles, or alone when its
/// own bound passes first.
struct SettleWaiters {
    private var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
    private var lastNumber = 0

    var isEmpty: Bool { waiting.isEmpty }

    /// Adds a waiter; its number takes it out at its bound.
    mutating func add(_ waiter: CheckedContinuation<Void, Never>) -> Int {
        lastNumber += 1
        waiting[lastNumber] = waiter
        return lastNumber
    }

    /// The waiter of `number`, if it still waits.
    mutating func remove(_ number: Int) -> CheckedContinuation<Void, Never>? { waiting.removeValue(forKey: number) }

    /// Every waiter, now no longer waiting.
    mutating func takeAll() -> [CheckedContinuation<Void, Never>] {
        defer { waiting = [:] }
        return Array(waiting.values)
    }
}
