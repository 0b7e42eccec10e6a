import SharedDevice
import Testing

/// Wrong passwords, counted (Docs/behaviour.md §1).
@Suite struct PasswordLockoutTests {
    typealias Party = PasswordLockout.Party
    static let mallory = Party.client(":1.9"), cou1 = Party.user("cou1")

    static func failing(_ count: Int, _ parties: [Party], from start: Duration = .zero) -> PasswordLockout {
        var lockout = PasswordLockout()
        for attempt in 0..<count { _ = lockout.attempt(parties, at: start + .milliseconds(attempt)) }
        return lockout
    }

    @Test(
        arguments: [
            // (failures, when asked after the last, locked for)
            (4, Duration.zero, nil),
            (5, .zero, Duration.seconds(30)),
            (5, .seconds(10), .seconds(20)),
            (5, .seconds(30), nil),
            (50, .seconds(29), .seconds(1)),
        ] as [(Int, Duration, Duration?)])
    func fiveFailuresInARowLockForThirtySecondsFromTheLast(failures: Int, after: Duration, locked: Duration?) {
        let lockout = Self.failing(failures, [Self.cou1, Self.mallory])
        // Attempts past the limit are refused, not counted.
        let last = Duration.milliseconds(min(failures, PasswordLockout.limit) - 1)
        #expect(lockout.wait(for: [Self.cou1], at: last + after) == locked)
        #expect(lockout.wait(for: [Self.mallory], at: last + after) == locked)
    }

    @Test func eitherPartyLockedLocksTheAttempt() {
        let lockout = Self.failing(5, [Self.mallory])
        #expect(lockout.wait(for: [.user("cou2"), Self.mallory], at: .seconds(1)) != nil)
        #expect(lockout.wait(for: [.user("cou2"), .client(":1.10")], at: .seconds(1)) == nil, "others go on")
    }

    @Test func attemptsAreCountedBeforeTheyAreCheckedAndALockedOneIsNot() {
        var lockout = PasswordLockout()
        let taken = (0..<8).map { _ in lockout.attempt([Self.cou1, Self.mallory], at: .seconds(1)) == nil }
        #expect(taken == [true, true, true, true, true, false, false, false], "five at once, then none")
        #expect(lockout.wait(for: [Self.cou1], at: .seconds(30)) == .seconds(1), "refusals do not extend it")
    }

    @Test func theRightPasswordStartsTheCountsOfItsUserAndClientAgain() {
        var lockout = Self.failing(4, [Self.cou1, Self.mallory])
        lockout.succeeded(user: "cou1", client: ":1.9")
        _ = lockout.attempt([.user("cou2"), Self.mallory], at: .seconds(1))
        #expect(lockout.wait(for: [Self.cou1, Self.mallory], at: .seconds(1)) == nil, "not five in a row")
        let other = Self.failing(5, [Self.mallory])
        #expect(other.wait(for: [Self.mallory], at: .seconds(1)) != nil)
    }

    @Test func aFailureAfterTheCoolDownCountsFromOne() {
        var lockout = Self.failing(5, [Self.cou1])
        #expect(lockout.attempt([Self.cou1], at: .seconds(40)) == nil)
        #expect(lockout.wait(for: [Self.cou1], at: .seconds(40)) == nil)
    }

    @Test func manyNamesAreRememberedBoundedAndTheLockedStay() {
        var lockout = Self.failing(5, [Self.mallory])
        for n in 0..<(PasswordLockout.capacity + 10) {
            _ = lockout.attempt([.user("guess\(n)")], at: .seconds(1))
        }
        #expect(lockout.wait(for: [Self.mallory], at: .seconds(2)) != nil, "a locked client is not forgotten first")
    }
}
