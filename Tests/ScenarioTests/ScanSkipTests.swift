import Scenario
import Testing

/// `scan: {skip: […]}`: the places of an app's container the leak scan does not read.
@Suite struct ScanSkipTests {
    @Test func patternsAreReadAndWrittenBack() throws {
        let text = """
            apps:
              - {name: mail, sdk: msal, scan: {skip: ["Library/Caches/vendor/*", documents/*.zip]}}
              - {name: notes, sdk: msal}
            steps:
              - launch: mail

            """
        let scenario = try #require(parsed(text))
        #expect(scenario.apps.map(\.scanSkips) == [["Library/Caches/vendor/*", "documents/*.zip"], []])
        let again = try Scenario.parse(scenario.yaml, file: "written.yaml")
        #expect(again.apps.map(\.scanSkips) == scenario.apps.map(\.scanSkips))
    }

    @Test func aWrongValueIsNamed() {
        func apps(_ scan: String) -> String {
            "apps:\n  - {name: mail, sdk: msal, scan: \(scan)}\nsteps:\n  - launch: mail\n"
        }
        #expect(problems(apps("{skip: [\"\"]}")).first?.hasSuffix("skip: an empty pattern matches nothing") == true)
        #expect(problems(apps("{skip: docs}")).first?.contains("skip") == true)
        #expect(!problems(apps("{only: [a]}")).isEmpty)
    }
}
