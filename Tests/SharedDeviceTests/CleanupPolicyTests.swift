import SharedDevice
import Testing

/// Docs/behaviour.md §8: what each policy keeps, and the canaries the scanner looks for.
@Suite struct CleanupPolicyTests {
    @Test(arguments: [
        ("wipe-all", [] as [RecordKind], true),
        ("retain-preferences", [.preferences], true),
        ("cache-common", [.common], true),
        ("external-key", [.external], true),
        ("keep-all", RecordKind.allCases, false),
    ])
    func eachPolicyKeepsExactlyWhatItNames(name: String, kept: [RecordKind], discardsKeys: Bool) throws {
        let policy = try #require(CleanupPolicy(name: name))
        #expect(policy.name == name)
        let plan = policy.plan
        #expect(Set(RecordKind.allCases).subtracting(plan.deletes) == Set(kept))
        #expect(plan.deletesDataKey == discardsKeys && plan.discardsExternalKey == discardsKeys)
        #expect(plan.reappliesPreferences == (name == "retain-preferences"))
        #expect(plan.hook == nil)
    }

    @Test func aHookDecidesEverythingButStillForgetsTheInMemoryKey() {
        let plan = CleanupPolicy.hook(command: "./my-cleanup.sh").plan
        #expect(
            plan.hook == "./my-cleanup.sh" && plan.deletes.isEmpty && !plan.deletesDataKey && plan.discardsExternalKey)
        #expect(CleanupPolicy(name: "hook") == nil && CleanupPolicy(name: "wipe") == nil)
    }

    @Test func onlySensitivePlainAndExternalCanariesAreLeaks() {
        #expect(RecordKind.allCases.filter(\.isUserData) == [.sensitive, .plain, .external])
    }

    @Test func canariesAreWrittenAndFoundAgain() {
        let canary = Canary(user: "cou1", app: "mail", kind: .sensitive, number: 3)
        #expect(canary.description == "SDLAB-CANARY/cou1/mail/sensitive/3")
        let text =
            "{\"a\":\"\(canary)\",\"b\":\"SDLAB-CANARY/cou2/notes/common/12 tail\", \"c\":\"SDLAB-CANARY/x/y/bogus/1\"}"
        #expect(Canary.all(in: text[...]) == [canary, Canary(user: "cou2", app: "notes", kind: .common, number: 12)])
        #expect(Canary.all(in: "nothing here").isEmpty)
    }
}
