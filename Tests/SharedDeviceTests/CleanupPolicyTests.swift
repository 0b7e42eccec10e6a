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

    /// A name cannot hold `/`: an app that makes a record a name writes each `/` as another
    /// character, and the user name may hold that character too.
    @Test(arguments: [
        ("SDLAB-CANARY:cou1:mail:plain:1 record of cou1", Canary(user: "cou1", app: "mail", kind: .plain, number: 1)),
        (
            "note-SDLAB-CANARY_cou_1_mail_sensitive_12.txt",
            Canary(user: "cou_1", app: "mail", kind: .sensitive, number: 12)
        ),
        ("SDLAB-CANARY∕cou1∕notes∕external∕3", Canary(user: "cou1", app: "notes", kind: .external, number: 3)),
        ("SDLAB-CANARY cou1 mail plain 7", Canary(user: "cou1", app: "mail", kind: .plain, number: 7)),
    ])
    func aCanaryMadeANameIsFound(name: String, canary: Canary) {
        #expect(Canary.all(inName: Array(name.utf8)) == [canary])
    }

    /// Where the app's name holds the separator too, the container's app tells the split.
    @Test func theContainersAppTellsTheSplit() {
        let name = Array("cou1-SDLAB-CANARY_cou1_forgets_caches_plain_2".utf8)
        #expect(
            Canary.all(inName: name, app: "forgets_caches") == [
                Canary(user: "cou1", app: "forgets_caches", kind: .plain, number: 2)
            ])
        #expect(
            Canary.all(inName: name) == [Canary(user: "cou1_forgets", app: "caches", kind: .plain, number: 2)])
    }

    @Test func aNameWithoutACanaryHoldsNone() {
        for name in ["SDLAB-CANARY", "SDLAB-CANARY:cou1:mail:bogus:1", "SDLAB-CANARY:cou1:plain", "notes.txt"] {
            #expect(Canary.all(inName: Array(name.utf8)).isEmpty, "\(name)")
        }
    }
}
