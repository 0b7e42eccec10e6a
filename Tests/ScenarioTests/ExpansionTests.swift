import Foundation
import Scenario
import Testing

/// Fleets (`count`) and `all` expand into app names in declaration order.
@Suite struct ExpansionTests {
    @Test func countExpandsAFleetInPlace() throws {
        let text = """
            apps:
              - {name: first, sdk: ws1}
              - {name: shop, count: 3, sdk: msal-android, background: true, cleanup: retain-preferences, executable: ./shop}
              - {name: last, sdk: msal}
            """
        let apps = try #require(parsed(text)).apps
        #expect(apps.map(\.name) == ["first", "shop1", "shop2", "shop3", "last"])
        for app in apps[1...3] {
            #expect(app.sdk == .msalAndroid && app.background && app.cleanup == .retainPreferences)
            #expect(app.executable == FileManager.default.currentDirectoryPath + "/shop")
            #expect(app.location == Location(file: "s.yaml", line: 3, column: 5))
        }
    }

    @Test(arguments: [1, 1000])
    func countRunsFromOneToAThousand(count: Int) throws {
        let apps = try #require(parsed("apps: [{name: f, count: \(count), sdk: msal}]\n")).apps
        #expect(apps.count == count && apps.last?.name == "f\(count)")
    }

    @Test(arguments: [
        ("launch: all", ["mail", "inventory", "fleet1", "fleet2", "fleet3"]),
        ("terminate: fleet", ["fleet1", "fleet2", "fleet3"]),
        ("background: [fleet, mail]", ["fleet1", "fleet2", "fleet3", "mail"]),
        ("suspend: [inventory, fleet2]", ["inventory", "fleet2"]),
    ])
    func lifecycleTargetsExpand(step: String, apps: [String]) throws {
        let steps = try #require(parsed(head + "  - \(step)\n")).steps
        guard case .lifecycle(_, let names) = steps.first?.kind else {
            Issue.record("not a lifecycle step")
            return
        }
        #expect(names == apps)
    }

    @Test func anExpectationOnAFleetChecksEachMember() throws {
        let steps = try #require(parsed(head + "  - expect: {fleet: {user: none}, all: {leaks: 0}}\n")).steps
        guard case .expect(let expectations) = steps.first?.kind else {
            Issue.record("not an expectation")
            return
        }
        #expect(expectations.map(\.target) == ["fleet1", "fleet2", "fleet3", "all"])
        #expect(expectations.allSatisfy { $0.location.line == 6 })
    }
}
