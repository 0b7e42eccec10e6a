import Foundation
import Scenario
import SharedDevice
import Testing

/// Docs/scenarios.md's example and each step form, parsed into the model.
@Suite struct ExampleTests {
    @Test func theSpecExampleParsesWithItsDefaults() throws {
        let scenario = try #require(parsed(specExample))
        #expect(scenario.name == "Check-in reaches MSAL apps at once and Workspace ONE apps on next launch")
        #expect(scenario.file == "s.yaml")
        #expect(
            scenario.device
                == Device(
                    policy: HubModel.Policy(shared: true, broadcastOnSignIn: false, passcode: false), online: true))

        #expect(scenario.users.map(\.user.name) == ["stage", "cou1", "cou2"])
        #expect(scenario.users[0].user.role == .staging && scenario.users[0].user.staging == .multiUser)
        #expect(scenario.users[1] == UserEntry(user: DirectoryUser(name: "cou1"), password: "cou1"))
        #expect(
            scenario.users[2]
                == UserEntry(
                    user: DirectoryUser(name: "cou2", firstName: "Ana", email: "ana@example.test"),
                    password: "s3cret"))

        #expect(scenario.apps.count == 54)
        #expect(
            scenario.apps[0]
                == AppEntry(
                    name: "mail", sdk: .msal, background: true, cleanup: .wipeAll,
                    location: Location(file: "s.yaml", line: 12, column: 5)))
        #expect(scenario.apps[1].background == false && scenario.apps[1].cleanup == .wipeAll)
        #expect(scenario.apps[2].sdk == .ws1 && scenario.apps[2].cleanup == .cacheCommon)
        // The hook's program is relative to the scenario file's folder (here the current one).
        let hook = FileManager.default.currentDirectoryPath + "/my-cleanup.sh"
        #expect(scenario.apps[3].sdk == .msalAndroid && scenario.apps[3].cleanup == .hook(command: hook))
        #expect(scenario.apps[4].name == "fleet1" && scenario.apps[53].name == "fleet50")
        #expect(scenario.apps[53].background && scenario.apps[53].location.line == 16)

        let steps = scenario.steps
        try #require(steps.count == 11)
        #expect(
            steps[0]
                == Step(
                    location: Location(file: "s.yaml", line: 18, column: 5), kind: .enroll(user: "stage", password: nil)
                ))
        #expect(steps[1].kind == .checkout(user: "cou1", password: nil))
        #expect(steps[2].kind == .lifecycle(.launch, apps: ["mail", "notes", "inventory"]))
        #expect(steps[3].kind == .write(app: "mail", kind: .sensitive, count: 5))
        #expect(steps[4].kind == .lifecycle(.background, apps: ["notes", "inventory"]))
        #expect(steps[5].kind == .checkin() && steps[6].kind == .settle(nil))
        #expect(steps[9].kind == .lifecycle(.foreground, apps: ["inventory"]))
        #expect(steps.allSatisfy { $0.error == nil })
    }

    @Test func theSpecExampleExpectationsAreTyped() throws {
        let steps = try #require(parsed(specExample)?.steps)
        try #require(steps.count == 11)
        guard case .expect(let first) = steps[7].kind, case .expect(let last) = steps[10].kind else {
            Issue.record("steps 8 and 11 are not expectations")
            return
        }
        try #require(first.map(\.target) == ["hub", "mail", "notes", "inventory"] && first[1].fields.count == 5)
        #expect(first[0].location == Location(file: "s.yaml", line: 26, column: 7))
        #expect(first[0].fields.map(\.check) == [.hubState(.checkedIn), .user(nil)])
        #expect(
            first[1].fields.map(\.check) == [
                .user(nil), .leaks(0), .exposed(0), .mechanism(.signal), .within(.milliseconds(50)),
            ])
        #expect(first[1].fields[4].location == Location(file: "s.yaml", line: 27, column: 67))
        #expect(first[2].fields.map(\.check) == [.state(.suspended), .user("cou1")])
        #expect(
            last[0].fields.map(\.check) == [.callbacks(["wipe"]), .leaks(0), .retained(preferences: nil, common: 0)])
    }

    @Test func withoutUsersTheDirectoryIsStageCou1Cou2() throws {
        let scenario = try #require(parsed("name: bare\n"))
        #expect(scenario.users == Scenario.defaultUsers)
        #expect(scenario.users.map(\.user.name) == ["stage", "cou1", "cou2"])
        #expect(scenario.users.map(\.password) == ["stage", "cou1", "cou2"])
        #expect(scenario.users[0].user.role == .staging && scenario.users[1].user.role == .user)
        #expect(scenario.apps.isEmpty && scenario.steps.isEmpty && scenario.device == Device())
    }

    @Test func aScenarioWithoutANameIsCalledAfterItsFile() throws {
        #expect(try Scenario.parse("steps: [checkin]\n", file: "Scenarios/shift-change.yaml").name == "shift-change")
    }

    @Test func deviceAndUserSettings() throws {
        let text = """
            device: {shared: false, broadcast_on: [sign-out, sign-in], online: false, passcode: true}
            users:
              - {name: boss, role: staging, staging: single-user, password: pw}
              - {name: ana, last_name: Lopez, domain: corp.test, group_id: night}
              - bob
            """
        let scenario = try #require(parsed(text))
        #expect(
            scenario.device
                == Device(
                    policy: HubModel.Policy(shared: false, broadcastOnSignIn: true, passcode: true), online: false))
        #expect(
            scenario.users[0]
                == UserEntry(user: DirectoryUser(name: "boss", role: .staging, staging: .singleUser), password: "pw"))
        #expect(
            scenario.users[1].user
                == DirectoryUser(name: "ana", lastName: "Lopez", domain: "corp.test", groupID: "night"))
        #expect(scenario.users[1].user.email == "ana@corp.test")
        #expect(scenario.users[2] == UserEntry(user: DirectoryUser(name: "bob"), password: "bob"))
    }

    @Test(arguments: [
        ("checkin", StepKind.checkin()),
        ("settle", .settle(nil)),
        ("settle: 2s", .settle(.seconds(2))),
        ("wipe", .wipe),
        ("lock", .lock),
        ("remove-account", .removeAccount),
        ("enroll: {user: stage, password: wrong}", .enroll(user: "stage", password: "wrong")),
        ("checkout: {user: cou2, password: cou2}", .checkout(user: "cou2", password: "cou2")),
        ("signin: {app: mail, user: cou1}", .signin(app: "mail", user: "cou1", password: nil)),
        ("signout: {app: fleet2}", .signout(app: "fleet2")),
        ("signout: mail", .signout(app: "mail")),
        ("terminate: inventory", .lifecycle(.terminate, apps: ["inventory"])),
        ("crash: [fleet3, mail]", .lifecycle(.crash, apps: ["fleet3", "mail"])),
        ("write: {app: fleet1, kind: external}", .write(app: "fleet1", kind: .external, count: 1)),
        ("network: offline", .network(online: false)),
        ("network: online", .network(online: true)),
        ("unlock: {app: inventory, user: cou1, password: x}", .unlock(app: "inventory", user: "cou1", password: "x")),
        ("unlock: cou1", .unlock(app: nil, user: "cou1", password: nil)),
        ("post: SHARED_MODE_CURRENT_ACCOUNT_CHANGED", .post(name: "SHARED_MODE_CURRENT_ACCOUNT_CHANGED")),
        ("hub: restart", .hub(.restart)),
        ("wait: 250ms", .wait(.milliseconds(250))),
    ])
    func eachStepForm(step: String, kind: StepKind) throws {
        let scenario = try #require(parsed(head + "  - \(step)\n"))
        #expect(scenario.steps.map(\.kind) == [kind])
        #expect(scenario.steps.first?.location == Location(file: "s.yaml", line: 6, column: 5))
    }

    @Test(arguments: [
        ("checkout: {user: cou1, error: Offline}", "Offline"),
        ("{checkout: cou1, error: AlreadyCheckedOut}", "AlreadyCheckedOut"),
        ("checkin: {error: Locked}", "Locked"),
        ("{launch: mail, error: NotRunning}", "NotRunning"),
        ("write: {app: mail, kind: plain, error: NoUser}", "NoUser"),
        ("enroll: {user: cou1, error: NotStagingUser}", "NotStagingUser"),
    ])
    func aStepMayExpectAnError(step: String, error: String) throws {
        let scenario = try #require(parsed(head + "  - \(step)\n"))
        #expect(scenario.steps.first?.error?.rawValue == error)
    }

    /// A typo in `error:` is found by `sdlab check`, not by a run that fails on it later.
    @Test func anErrorThatIsNoDeviceErrorIsNamedWithTheOnesThereAre() {
        let found = problems(head + "  - checkin: {error: NotCheckedin}\n")
        #expect(found.count == 1)
        #expect(found.first?.contains("error: expected one of NotStagingUser, ") == true, "\(found)")
        #expect(found.first?.hasSuffix("NotRunning, found 'NotCheckedin'") == true, "\(found)")
    }

    @Test func repeatNestsSteps() throws {
        let scenario = try #require(parsed(head + "  - repeat: {times: 3, steps: [checkin, {wait: 1s}]}\n"))
        guard case .repeat(let times, let steps) = scenario.steps.first?.kind else {
            Issue.record("not a repeat")
            return
        }
        #expect(times == 3)
        #expect(steps.map(\.kind) == [.checkin(), .wait(.seconds(1))])
        #expect(steps.map(\.location.column) == [32, 41])
    }

    @Test func everyExpectationField() throws {
        let text =
            head + """
                  - expect:
                      hub: {state: checked-out, user: cou1, generation: 18446744073709551615, online: false, locked: true, foreground: hub}
                      mail: {state: not-running, previous: cou2, error: Offline, records: 3, prefs: applied, retained: {preferences: 2, common: 1}}
                      ws1: {state: blocked, callbacks: [initial-check(sharedDeviceNotCheckedOut)], error: none}
                      msal: {callbacks: [current-account(cou1,none), current-account(none,cou1)], mechanism: none}
                      all: {callbacks: [], foreground: mail}
                """
        let scenario = try? Scenario.parse(text, file: "s.yaml")
        #expect(scenario == nil, "foreground is a hub field")
        let valid = try #require(parsed(text.replacingOccurrences(of: ", foreground: mail", with: "")))
        guard case .expect(let expectations) = valid.steps.first?.kind else {
            Issue.record("not an expectation")
            return
        }
        #expect(expectations.map(\.target) == ["hub", "mail", "ws1", "msal", "all"])
        #expect(
            expectations.map { $0.fields.map(\.check) } == [
                [
                    .hubState(.checkedOut), .user("cou1"), .generation(.max), .online(false), .locked(true),
                    .foreground("hub"),
                ],
                [
                    .state(.notRunning), .previous("cou2"), .error("Offline"), .records(3), .prefsApplied,
                    .retained(preferences: 2, common: 1),
                ],
                [.state(.blocked), .callbacks(["initial-check(sharedDeviceNotCheckedOut)"]), .error(nil)],
                [.callbacks(["current-account(cou1,none)", "current-account(none,cou1)"]), .mechanism(.none)],
                [.callbacks([])],
            ])
    }
}
