import Scenario
import SharedDevice
import Testing

/// `hub_crash:` (Docs/scenarios.md): where in a change the runner asks of the hub it dies.
@Suite struct HubCrashStepTests {
    @Test(arguments: [
        ("- checkin: {hub_crash: after-commit}", HubCrashPoint.afterCommit),
        ("- checkout: {user: cou1, hub_crash: before-commit}", .beforeCommit),
        ("- remove-account: {hub_crash: after-commit}", .afterCommit),
        ("- wipe:\n    hub_crash: after-posts", .afterPosts),
        ("- checkin:\n    hub_crash: after-ios-post", .afterIOSPost),
    ])
    func theStepsThatCanCrashTheHub(step: String, point: HubCrashPoint) throws {
        let steps = try #require(parsed("steps:\n  \(step)\n")?.steps)
        #expect(steps.first?.hubCrash == point && steps.first?.error == nil)
    }

    @Test(arguments: [
        (
            "- enroll: {user: stage, hub_crash: after-commit}",
            "2:38: hub_crash: does not apply to enroll (only to a change the runner asks of the hub: checkout, checkin, remove-account, wipe)"
        ),
        (
            "- checkin: {error: Locked, hub_crash: after-commit}",
            "2:41: hub_crash: a hub that crashes answers nothing, so the step cannot also expect error:"
        ),
        (
            "- checkin: {hub_crash: later}",
            "2:26: hub_crash: expected one of before-commit, after-commit, after-ios-post, after-posts, found 'later'"
        ),
        (
            "- checkin: {hub_crash: after-commit}\n    hub_crash: after-posts",
            "2:26: hub_crash: given twice for one step"
        ),
    ])
    func whatIsRefused(step: String, problem: String) {
        #expect(problems("steps:\n  \(step)\n") == ["s.yaml:" + problem])
    }
}
