import Foundation
import SharedDevice
import Testing

/// Docs/behaviour.md §6: detection at cold start and return to foreground, in order, coalesced.
@Suite struct WorkspaceOneSessionRuleTests {
    static func out(_ user: String, _ generation: UInt64) -> Session {
        Session(state: .checkedOut, user: user, generation: generation)
    }
    static func checkedIn(_ generation: UInt64) -> Session {
        Session(state: .checkedIn, user: nil, generation: generation)
    }
    static let unenrolled = Session(state: .unenrolled, user: nil, generation: 0)

    /// The callbacks and effects as words, for readable tables.
    static func words(_ effects: [WorkspaceOneSessionRule.Effect]) -> [String] {
        effects.map {
            switch $0 {
            case .deleteDataKeys: "delete-keys"
            case .callback(let callback): callback.description
            case .block: "block"
            }
        }
    }

    /// An SDK that started while `start` was the session.
    static func started(at start: Session) -> WorkspaceOneSessionRule {
        var sdk = WorkspaceOneSessionRule()
        _ = sdk.detect(.coldStart, hub: start)
        return sdk
    }

    @Test(arguments: [
        (out("cou1", 1), ["initial-check"], false),
        (checkedIn(2), ["initial-check(sharedDeviceNotCheckedOut)", "block"], true),
        (unenrolled, ["initial-check(sharedDeviceNotCheckedOut)", "block"], true),
    ])
    func aVeryFirstLaunchRecordsTheSessionAndCallsNeitherWipeNorUserChanged(
        hub: Session, expected: [String], blocked: Bool
    ) {
        var sdk = WorkspaceOneSessionRule()
        #expect(Self.words(sdk.detect(.coldStart, hub: hub)) == expected)
        #expect(sdk.lastSession == hub && sdk.blocked == blocked && sdk.initialised == !blocked)
    }

    /// A running app that started with cou1 checked out (generation 1) returns to the foreground.
    @Test(arguments: [
        ("nothing happened", out("cou1", 1), [] as [String]),
        ("check-in", checkedIn(2), ["delete-keys", "wipe", "block"]),
        ("check-in, check-out cou2", out("cou2", 3), ["delete-keys", "wipe", "user-changed"]),
        ("cou1 → check-in → cou1 is a new session", out("cou1", 3), ["delete-keys", "wipe", "user-changed"]),
        ("many changes coalesce", out("cou2", 41), ["delete-keys", "wipe", "user-changed"]),
        ("enterprise wipe", unenrolled, ["delete-keys", "wipe", "block"]),
    ])
    func returningToTheForegroundDetectsInOrder(story: String, hub: Session, expected: [String]) {
        var sdk = Self.started(at: Self.out("cou1", 1))
        #expect(Self.words(sdk.detect(.returnToForeground, hub: hub)) == expected, "\(story)")
        // The next opportunity with no change in between calls nothing more.
        if !sdk.blocked { #expect(sdk.detect(.returnToForeground, hub: hub).isEmpty) }
    }

    @Test func aColdStartAfterChangesCallsEachOnceThenInitialCheck() {
        var sdk = Self.started(at: Self.out("cou1", 1))
        #expect(
            Self.words(sdk.detect(.coldStart, hub: Self.out("cou2", 5)))
                == ["delete-keys", "wipe", "user-changed", "initial-check"])
    }

    @Test func aBlockedAppStaysBlockedUntilLaunchedAgain() {
        var sdk = Self.started(at: Self.checkedIn(2))
        #expect(sdk.blocked)
        // Checked out meanwhile: a return to the foreground changes nothing.
        #expect(sdk.detect(.returnToForeground, hub: Self.out("cou2", 3)).isEmpty)
        #expect(sdk.blocked)
        // Launched again: the new session is a user change, and the app is not blocked.
        #expect(Self.words(sdk.detect(.coldStart, hub: Self.out("cou2", 3))) == ["user-changed", "initial-check"])
        #expect(!sdk.blocked && sdk.initialised)
    }

    @Test func anEnterpriseWipeOfACheckedInDeviceWipesAtTheNextLaunch() {
        var sdk = Self.started(at: Self.checkedIn(2))
        #expect(
            Self.words(sdk.detect(.coldStart, hub: Self.unenrolled))
                == ["delete-keys", "wipe", "initial-check(sharedDeviceNotCheckedOut)", "block"])
    }

    @Test func anUnansweredHubChangesNothing() {
        var sdk = Self.started(at: Self.out("cou1", 1))
        #expect(sdk.detect(.returnToForeground, hub: nil).isEmpty)
        #expect(sdk.lastSession == Self.out("cou1", 1))
        // The check happens at the next opportunity the hub answers.
        #expect(
            Self.words(sdk.detect(.returnToForeground, hub: Self.checkedIn(2))) == ["delete-keys", "wipe", "block"])
    }

    @Test func onlyTheLastSessionIsPersisted() throws {
        let sdk = Self.started(at: Self.out("cou1", 1))
        let restored = try JSONDecoder().decode(WorkspaceOneSessionRule.self, from: JSONEncoder().encode(sdk))
        #expect(restored.lastSession == sdk.lastSession && !restored.initialised && !restored.blocked)
    }
}

extension WorkspaceOneSessionRuleTests {
    /// Docs/behaviour.md §7: an initialisation that fails (the Hub does not answer) blocks the UI until
    /// the next launch; a return to the foreground is then no opportunity, and nothing is wiped.
    @Test func aColdStartWithoutTheHubIsBlockedUntilTheNextLaunch() {
        var sdk = WorkspaceOneSessionRule(lastSession: Session(state: .checkedOut, user: "cou1", generation: 1))
        #expect(sdk.detect(.coldStart, hub: nil) == [.callback(.initialCheck(error: "HubUnreachable")), .block])
        #expect(sdk.blocked && !sdk.initialised && !sdk.takes(.returnToForeground))
        #expect(sdk.detect(.returnToForeground, hub: Session(state: .checkedIn, generation: 2)) == [])
        #expect(
            sdk.detect(.coldStart, hub: Session(state: .checkedIn, generation: 2))
                == [
                    .deleteDataKeys, .callback(.wipe), .callback(.initialCheck(error: "sharedDeviceNotCheckedOut")),
                    .block,
                ])
        var app = AppModel(policy: .wipeAll, user: "cou1")
        #expect(
            app.heard(CheckResult([.callback(.initialCheck(error: "HubUnreachable")), .block], session: nil)).isEmpty
                && app.user == "cou1")
    }
}
