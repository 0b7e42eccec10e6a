import SharedDevice
import Testing

/// Docs/behaviour.md §10, "A user change": which SDK answers mean a team's app must have cleaned up, and for whom.
@Suite struct UserChangeTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var callbacks: [String]
        var current: String?
        var previous: String??
        var served: String?
        var cleansUpFor: String??
        var testDescription: String { "\(callbacks) current \(current ?? "none") served \(served ?? "none")" }
    }

    static let cases: [Case] = [
        // MSAL: (current, previous)
        Case(
            callbacks: ["current-account(cou1,none)"], current: "cou1", previous: .some(nil), served: nil,
            cleansUpFor: nil),
        Case(
            callbacks: ["current-account(cou1,cou1)"], current: "cou1", previous: "cou1", served: "cou1",
            cleansUpFor: nil),
        Case(
            callbacks: ["current-account(cou2,cou1)"], current: "cou2", previous: "cou1", served: "cou1",
            cleansUpFor: "cou1"),
        Case(
            callbacks: ["current-account(none,cou1)"], current: nil, previous: "cou1", served: "cou1",
            cleansUpFor: "cou1"),
        Case(
            callbacks: ["current-account(none,none)"], current: nil, previous: .some(nil), served: nil, cleansUpFor: nil
        ),
        // Workspace ONE: wipe and user change, whatever the host saw before
        Case(callbacks: ["initial-check"], current: "cou1", previous: nil, served: nil, cleansUpFor: nil),
        Case(
            callbacks: ["wipe", "user-changed", "initial-check"], current: "cou2", previous: nil, served: "cou1",
            cleansUpFor: "cou1"),
        Case(callbacks: ["wipe"], current: nil, previous: nil, served: "cou1", cleansUpFor: "cou1"),
        Case(callbacks: ["user-changed"], current: "cou2", previous: nil, served: nil, cleansUpFor: .some(nil)),
    ]

    @Test(arguments: cases)
    func cleanupFollowsTheAnswer(_ example: Case) throws {
        let callbacks = try example.callbacks.map { try #require(SDKCallback(text: $0)) }
        let result = CheckResult(callbacks: callbacks, user: example.current, previous: example.previous)
        #expect(UserChange.previousUser(result, served: example.served) == example.cleansUpFor)
    }
}
