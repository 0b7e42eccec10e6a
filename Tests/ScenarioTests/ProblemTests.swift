import Foundation
import Scenario
import Testing

/// Every kind of mistake is reported as `FILE:LINE:COL: message` at the node that is wrong.
@Suite struct ProblemTests {
    @Test(arguments: [
        // The head: unknown keys, wrong types, bad values.
        ("nmae: x\n", "s.yaml:1:1: unknown key nmae in the scenario (expected name, tags, device, users, apps, steps)"),
        (
            "- just a list\n",
            "s.yaml:1:1: the scenario: expected a mapping with name, tags, device, users, apps, steps, found a list"
        ),
        ("", "s.yaml:1:1: empty scenario"),
        (
            "device: [a]\n",
            "s.yaml:1:9: device: expected a mapping with shared, broker, broadcast_on, online, passcode, background_grace, background_task, android_freeze_after, found a list"
        ),
        ("device: {shared: maybe}\n", "s.yaml:1:18: shared: expected true or false, found 'maybe'"),
        ("device: {broadcast_on: [sign-in]}\n", "s.yaml:1:24: broadcast_on must include sign-out"),
        (
            "device: {broadcast_on: [sign-up]}\n",
            "s.yaml:1:25: broadcast_on: expected one of sign-out, sign-in, found 'sign-up'"
        ),
        ("users: {name: a}\n", "s.yaml:1:8: users: expected a list of users, found a mapping"),
        ("users:\n  - {name: a, staging: single-user}\n", "s.yaml:2:15: staging applies to a staging user only"),
        ("users:\n  - {name: a, role: admin}\n", "s.yaml:2:21: role: expected one of staging, user, found 'admin'"),
        ("users:\n  - {name: a}\n  - {name: a}\n", "s.yaml:3:12: duplicate user a (first at 2:12)"),
        ("users:\n  - {name: 'a b'}\n", "s.yaml:2:12: user name: expected a user name of letters, digits"),
        ("users:\n  - {name: none}\n", "s.yaml:2:12: user name: none means no user"),
        ("users:\n  - {password: x}\n", "s.yaml:2:5: a user is missing name"),
        (
            "apps:\n  - {name: mail, sdk: msal, colour: red}\n",
            "s.yaml:2:29: unknown key colour in an app (expected name, sdk, background, background_task, cleanup, count, executable, info_plist, scan)"
        ),
        ("apps:\n  - {name: mail}\n", "s.yaml:2:5: an app is missing sdk"),
        (
            "apps:\n  - {name: mail, sdk: msal-ios}\n",
            "s.yaml:2:23: sdk: expected one of msal, msal-android, ws1, found 'msal-ios'"
        ),
        (
            "apps:\n  - {name: mail, sdk: msal, cleanup: shred}\n",
            "s.yaml:2:38: cleanup: expected one of wipe-all, retain-preferences, cache-common, external-key, keep-all, own, "
                + "{hook: COMMAND, keeps: [KINDS]} or {keeps: [KINDS]}, found 'shred'"
        ),
        (
            "apps:\n  - {name: mail, sdk: msal, cleanup: {hook: ~}}\n",
            "s.yaml:2:45: hook: expected a command, found nothing"
        ),
        ("apps:\n  - {name: mail, sdk: msal, cleanup: {}}\n", "s.yaml:2:38: cleanup: expected hook, keeps or both"),
        (
            "apps:\n  - {name: mail, sdk: msal, cleanup: {hook: x, keep: [common]}}\n",
            "s.yaml:2:48: unknown key keep in cleanup (expected hook, keeps)"
        ),
        (
            "apps:\n  - {name: mail, sdk: msal, cleanup: {hook: x, keeps: [common, sensitive]}}\n",
            "s.yaml:2:64: keeps: sensitive is user data, which a cleanup never keeps (it may keep preferences, common)"
        ),
        (
            "apps:\n  - {name: mail, sdk: msal, cleanup: {hook: x, keeps: [external]}}\n",
            "s.yaml:2:56: keeps: external is user data, which a cleanup never keeps"
        ),
        (
            "apps:\n  - {name: mail, sdk: msal, executable: /x, cleanup: {keeps: [plain]}}\n",
            "s.yaml:2:63: keeps: plain is user data, which a cleanup never keeps"
        ),
        (
            "apps:\n  - {name: mail, sdk: msal, cleanup: {hook: x, keeps: [cache]}}\n",
            "s.yaml:2:56: keeps: expected one of preferences, common, found 'cache'"
        ),
        (
            "apps:\n  - {name: mail, sdk: msal, cleanup: {hook: x, keeps: common}}\n",
            "s.yaml:2:55: keeps: expected a list of preferences, common, found 'common'"
        ),
        (
            "apps:\n  - {name: mail, sdk: msal, cleanup: own}\n",
            "s.yaml:2:38: cleanup: the app's own code needs executable: only an app a team built has cleanup code of its own "
                + "(the built-in app takes a policy or {hook: COMMAND})"
        ),
        (
            "apps:\n  - {name: mail, sdk: msal, cleanup: {keeps: [common]}}\n",
            "s.yaml:2:38: cleanup: the app's own code needs executable: only an app a team built has cleanup code of its own"
        ),
        ("apps:\n  - {name: mail, sdk: msal, executable: ''}\n", "s.yaml:2:41: executable: expected a path, found ''"),
        (
            "apps:\n  - {name: mail, sdk: msal, background: 1}\n",
            "s.yaml:2:41: background: expected true or false, found '1'"
        ),
        (
            "apps:\n  - {name: 9lives, sdk: msal}\n",
            "s.yaml:2:12: app name: expected an app name of letters, digits and '_'"
        ),
        ("apps:\n  - {name: all, sdk: msal}\n", "s.yaml:2:12: app name: all is reserved"),
        (
            "apps:\n  - {name: mail, sdk: msal}\n  - {name: mail, sdk: ws1}\n",
            "s.yaml:3:12: duplicate app mail (first at 2:12)"
        ),
        (
            "apps:\n  - {name: f, count: 0, sdk: msal}\n",
            "s.yaml:2:22: count: expected a whole number from 1 to 1000, found 0"
        ),
        (
            "apps:\n  - {name: f, count: 1001, sdk: msal}\n",
            "s.yaml:2:22: count: expected a whole number from 1 to 1000, found 1001"
        ),
        (
            "apps:\n  - {name: fleet2, sdk: msal}\n  - {name: fleet, count: 3, sdk: msal}\n",
            "s.yaml:3:26: count 3 names fleet1 … fleet3, which clashes with the app fleet2 at 2:12"
        ),
        (
            "apps:\n  - {name: ws, count: 2, sdk: msal}\n",
            "s.yaml:2:23: count 2 names ws1 … ws2, which clashes with the reserved name ws1"
        ),
        // Steps (the head's steps start on line 6).
        (head + "  - lunch: mail\n", "s.yaml:6:5: unknown step lunch (expected one of enroll, checkout, checkin"),
        (head + "  - launch\n", "s.yaml:6:5: launch needs a value (launch: …)"),
        (head + "  - [checkin]\n", "s.yaml:6:5: step: expected a step such as checkin or checkout: cou1, found a list"),
        (head + "  - {checkin: , wipe: }\n", "s.yaml:6:5: one step per list item, found checkin, wipe"),
        (
            head + "  - launch: [mail, mial]\n",
            "s.yaml:6:20: launch: unknown app mial (the apps are mail, inventory, fleet1 … fleet3)"
        ),
        ("steps:\n  - launch: ghost\n", "s.yaml:2:13: launch: unknown app ghost (there are no apps)"),
        (head + "  - launch: [mail, all]\n", "s.yaml:6:20: launch: all stands alone (launch: all)"),
        (head + "  - launch: []\n", "s.yaml:6:13: launch: expected at least one app"),
        (head + "  - checkout: cou3\n", "s.yaml:6:15: checkout: unknown user cou3 (the users are stage, cou1, cou2)"),
        (
            head + "  - checkout: {user: cou1, pasword: x}\n",
            "s.yaml:6:28: unknown key pasword in checkout (expected user, password, error, hub_crash, from)"
        ),
        (head + "  - enroll: cou1\n", "s.yaml:6:13: enroll needs a staging user: cou1 has role user"),
        (
            head + "  - wait: 5 sec\n",
            "s.yaml:6:11: wait: bad duration '5 sec' (expected a duration such as 250ms, 5s or 2m)"
        ),
        (head + "  - wait\n", "s.yaml:6:5: wait needs a value"),
        (head + "  - settle: soon\n", "s.yaml:6:13: settle: bad duration 'soon'"),
        // A duration says its unit.
        (head + "  - wait: 1500\n", "s.yaml:6:11: wait: 1500 needs a unit (1500ms or 1500s?)"),
        (head + "  - settle: 2.5\n", "s.yaml:6:13: settle: 2.5 needs a unit (2.5ms or 2.5s?)"),
        (head + "  - repeat: {times: 2, steps: [{wait: 0}]}\n", "s.yaml:6:39: wait: 0 needs a unit (0ms or 0s?)"),
        (head + "  - expect:\n      mail: {within: 50}\n", "s.yaml:7:22: within: 50 needs a unit (50ms or 50s?)"),
        (
            head + "  - write: {app: mail, kind: secret}\n",
            "s.yaml:6:30: kind: expected one of sensitive, plain, preferences, common, external, found 'secret'"
        ),
        (
            head + "  - write: {app: mail, kind: plain, count: 0}\n",
            "s.yaml:6:44: count: expected a whole number from 1 to 100000, found 0"
        ),
        (
            head + "  - write: {app: mail, kind: plain, count: 100001}\n",
            "s.yaml:6:44: count: expected a whole number from 1 to 100000, found 100001"
        ),
        (
            head + "  - write: {app: fleet, kind: plain}\n",
            "s.yaml:6:18: app: fleet is a fleet; name one of its apps (fleet1 … fleet3)"
        ),
        (head + "  - write: {kind: plain}\n", "s.yaml:6:12: write is missing app"),
        (
            head + "  - signin: {app: inventory, user: cou1}\n",
            "s.yaml:6:19: signin needs an MSAL app: inventory embeds ws1"
        ),
        (head + "  - signout: inventory\n", "s.yaml:6:14: signout needs an MSAL app: inventory embeds ws1"),
        (head + "  - network: down\n", "s.yaml:6:14: network: expected one of online, offline, found 'down'"),
        (head + "  - hub: reboot\n", "s.yaml:6:10: hub: expected one of crash, restart, found 'reboot'"),
        (
            head + "  - repeat: {times: 0, steps: [checkin]}\n",
            "s.yaml:6:21: times: expected a whole number of at least 1, found 0"
        ),
        (head + "  - repeat: {times: 2, steps: []}\n", "s.yaml:6:31: steps: expected at least one step to repeat"),
        (head + "  - repeat: {times: 2}\n", "s.yaml:6:13: repeat is missing steps"),
        (
            head + "  - repeat: {times: 1000, steps: [{repeat: {times: 1001, steps: [checkin]}}]}\n",
            "s.yaml:6:21: times: 1000 repeats of 1001 steps is more than the 1000000 steps a scenario may run"
        ),
        (
            head + "  - repeat: {times: 9223372036854775807, steps: [checkin, checkin]}\n",
            "s.yaml:6:21: times: 9223372036854775807 repeats of 2 steps is more than"
        ),
        (
            head + "  - repeat: {times: 600000, steps: [checkin]}\n  - repeat: {times: 600000, steps: [checkin]}\n",
            "s.yaml:6:3: steps: more than the 1000000 steps a scenario may run, every repeat unrolled"
        ),
        (head + "  - {wait: 1s, error: Offline}\n", "s.yaml:6:23: error: does not apply to wait"),
        (
            head + "  - checkout: {user: cou1, error: not-an-error}\n",
            "s.yaml:6:35: error: expected one of NotStagingUser, BadCredentials,"
        ),
        (
            head + "  - {checkout: {user: cou1, error: Offline}, error: Offline}\n",
            "s.yaml:6:36: error: given twice for one step"
        ),
        (
            head + "  - checkin: now\n",
            "s.yaml:6:14: checkin: expected nothing or {from: hub|console, error: NAME, hub_crash: POINT}, found 'now'"
        ),
        // Expectations.
        (
            head + "  - expect:\n      hub: {leaks: 0}\n",
            "s.yaml:7:13: unknown key leaks in the expectation for hub (expected state, user, account, generation, online, locked, foreground)"
        ),
        (head + "  - expect:\n      mail: {user: bob}\n", "s.yaml:7:20: user: unknown user bob"),
        (head + "  - expect:\n      mial: {user: none}\n", "s.yaml:7:7: unknown app mial in expect"),
        (
            head + "  - expect:\n      mail: {state: running}\n",
            "s.yaml:7:21: state: expected one of foreground, background, suspended, not-running, blocked, found 'running'"
        ),
        (
            head + "  - expect:\n      hub: {state: running}\n",
            "s.yaml:7:20: state: expected one of unenrolled, checked-in, checked-out"
        ),
        (
            head + "  - expect:\n      mail: {leaks: -1}\n",
            "s.yaml:7:21: leaks: expected a whole number of at least 0, found -1"
        ),
        (head + "  - expect:\n      mail: {within: fast}\n", "s.yaml:7:22: within: bad duration 'fast'"),
        (
            head + "  - expect:\n      mail: {mechanism: push}\n",
            "s.yaml:7:25: mechanism: expected one of signal, launch, foreground, resume, none"
        ),
        (head + "  - expect:\n      mail: {prefs: kept}\n", "s.yaml:7:21: prefs: expected applied, found 'kept'"),
        (head + "  - expect:\n      mail: {retained: {secrets: 0}}\n", "s.yaml:7:25: unknown key secrets in retained"),
        (
            head + "  - expect:\n      mail: {callbacks: wipe}\n",
            "s.yaml:7:25: callbacks: expected a list of callbacks, found 'wipe'"
        ),
        (
            head + "  - expect:\n      mail: {callbacks: [initial-check(x]}\n",
            "s.yaml:7:25: callbacks: unbalanced parenthesis in 'initial-check(x'"
        ),
        // Callbacks in each SDK's words.
        (
            head + "  - expect:\n      ws1: {callbacks: [wipee]}\n",
            "s.yaml:7:25: callbacks: unknown callback 'wipee' for a ws1 app (expected wipe, user-changed, initial-check, initial-check(ERROR))"
        ),
        (
            head + "  - expect:\n      inventory: {callbacks: [wipe, user-changed, initial-check(Offline)]}\n",
            "s.yaml:7:51: callbacks: unknown error 'Offline' in 'initial-check(Offline)' (expected sharedDeviceNotCheckedOut or HubUnreachable)"
        ),
        (
            head + "  - expect:\n      mail: {callbacks: [wipe]}\n",
            "s.yaml:7:26: callbacks: unknown callback 'wipe' for an msal app (expected current-account(A,B))"
        ),
        (
            head + "  - expect:\n      mail: {callbacks: [current-account(cou1,none), current-account(cou9,cou1)]}\n",
            "s.yaml:7:54: callbacks: unknown user 'cou9' in 'current-account(cou9,cou1)' (the users are stage, cou1, cou2; none for no user)"
        ),
        (
            head + "  - expect:\n      mail: {callbacks: [\"current-account(cou1, none)\"]}\n",
            "s.yaml:7:26: callbacks: unknown user ' none' in 'current-account(cou1, none)'"
        ),
        (
            head + "  - expect:\n      mail: {callbacks: [current-account(cou1)]}\n",
            "s.yaml:7:26: callbacks: unknown callback 'current-account(cou1)' for an msal app"
        ),
        (
            head + "  - expect:\n      msal: {callbacks: [account-loaded(cou1)]}\n",
            "s.yaml:7:26: callbacks: unknown callback 'account-loaded(cou1)' for an msal app (expected current-account(A,B))"
        ),
        (
            head + "  - expect:\n      fleet: {callbacks: [account-loaded(cou1)]}\n",
            "s.yaml:7:27: callbacks: unknown callback 'account-loaded(cou1)' for an msal app"
        ),
        (
            head + "  - expect:\n      all: {callbacks: [initial-check]}\n",
            "s.yaml:7:25: callbacks: unknown callback 'initial-check' for an msal app"
        ),
        (
            "apps:\n  - {name: a, sdk: msal-android}\nsteps:\n  - expect:\n      msal: {callbacks: [current-account(cou1,none)]}\n",
            "s.yaml:5:26: callbacks: unknown callback 'current-account(cou1,none)' for an msal-android app "
                + "(expected account-changed(A,B), account-loaded(A))"
        ),
        (
            "apps:\n  - {name: a, sdk: msal-android}\n  - {name: b, sdk: ws1}\nsteps:\n  - expect:\n      all: {callbacks: [wipe]}\n",
            "s.yaml:6:25: callbacks: unknown callback 'wipe' for an msal-android app"
        ),
        (
            head + "  - expect:\n      hub: {generation: -1}\n",
            "s.yaml:7:25: generation: expected a whole number from 0 to 18446744073709551615"
        ),
        (head + "  - expect:\n      hub: {foreground: nowhere}\n", "s.yaml:7:25: foreground: unknown app nowhere"),
        (head + "  - expect:\n      mail: {}\n", "s.yaml:7:13: mail: expected at least one of state, user"),
        (
            head + "  - expect:\n      mail: {retained: {}}\n",
            "s.yaml:7:24: retained: expected preferences, common or both"
        ),
        (head + "  - expect: {}\n", "s.yaml:6:13: expect: expected at least one of hub, all, msal, ws1 or an app"),
        // A group that covers no app would check nothing, and pass whatever the apps do.
        (
            "apps:\n  - {name: inventory, sdk: ws1}\nsteps:\n  - expect:\n      msal: {leaks: 0}\n",
            "s.yaml:5:7: expect: msal matches no app, so it would check nothing (no app uses MSAL; the apps are inventory)"
        ),
        (
            "apps:\n  - {name: mail, sdk: msal-android}\nsteps:\n  - expect:\n      ws1: {user: none}\n",
            "s.yaml:5:7: expect: ws1 matches no app, so it would check nothing (no app uses Workspace ONE; the apps are mail)"
        ),
        (
            "steps:\n  - expect:\n      all: {leaks: 0}\n",
            "s.yaml:3:7: expect: all matches no app, so it would check nothing (the scenario declares no apps)"
        ),
        // YAML itself.
        (
            "steps:\n  - checkout: {user: cou1\n",
            "s.yaml:2:15: this { is never closed: a } is missing, or a ',' between its items, before 3:1"
        ),
        (
            "steps: [checkin, wipe\n",
            "s.yaml:1:8: this [ is never closed: a ] is missing, or a ',' between its items, before 2:1"
        ),
        ("steps: [checkin, {wait: \n\n", "s.yaml:3:1: the file ends inside [ … ] or { … }: a ] or } is missing"),
        (
            "steps: [checkin, , wipe]\n",
            "s.yaml:1:18: invalid YAML: while parsing a flow node: did not find expected node content"
        ),
        ("name: a\nsteps:\n\t- checkin\n", "s.yaml:3:1: a tab character: YAML indents with spaces only"),
        ("steps:\n  -\tcheckin\n", "s.yaml:2:4: a tab character: YAML indents with spaces only"),
        ("apps:\n  - name: a\n\tsdk: msal\n", "s.yaml:3:1: a tab character: YAML indents with spaces only"),
        ("name: \"abc\nsteps: []\n", "s.yaml:1:7: this quote is never closed (the text runs to the end of the file)"),
        (
            "steps:\n  - post: 'it's'\n",
            "s.yaml:2:15: text right after a closing quote (in quotes, write '' for ' inside '…'"
        ),
        ("name: \"a\"b\n", "s.yaml:1:10: text right after a closing quote"),
        (
            "steps:\n  - post: \"a\\d\"\n",
            "s.yaml:2:13: unknown escape \\d in double quotes: write \\\\ for a backslash, or use single quotes"
        ),
        (
            "steps:\n  - post: " + String(repeating: "n", count: 512) + "\n",
            "s.yaml:2:11: post: a notification name is 1 to 511 bytes without NUL (this one has 512)"
        ),
        ("name: @home\n", "s.yaml:1:7: text cannot start with @ unless it is in quotes"),
        ("name:a\nsteps: []\n", "s.yaml:1:5: a space is missing after this ':' (write key: value)"),
        (
            "steps:\n  - checkout:cou1\n",
            "s.yaml:2:5: a space is missing after ':' in checkout:cou1 (write checkout: cou1)"
        ),
        (
            "apps:\n  - {name:mail, sdk: msal}\n",
            "s.yaml:2:6: a space is missing after ':' in name:mail (write name: mail)"
        ),
        ("name: a: b\n", "s.yaml:1:8: a second ': ' on one line: put a value that contains ': ' in quotes"),
        (
            "name: a\n  steps: []\n",
            "s.yaml:2:3: this line is indented under a key that already has its value (1:1): line the keys up"
        ),
        ("name: a\nname: b\n", "s.yaml:1:1: duplicate key name in one mapping"),
        ("name: \u{1}\n", "s.yaml:1:7: invalid YAML: control characters are not allowed"),
        ("steps: *nowhere\n", "s.yaml:1:8: invalid YAML: found undefined alias"),
    ])
    func eachProblemNamesFileLineAndColumn(text: String, expected: String) {
        let found = problems(text)
        #expect(found.count == 1 && found.first?.hasPrefix(expected) == true, "\(found)")
    }

    @Test func everyProblemOfAFileIsReportedInFileOrder() {
        let text = """
            steps:
              - checkout: nobody
              - launch: ghost
            device: {online: sometimes, shared: maybe}
            apps:
              - {name: mail, sdk: blackberry}

            """
        #expect(
            problems(text) == [
                "s.yaml:2:15: checkout: unknown user nobody (the users are stage, cou1, cou2)",
                "s.yaml:3:13: launch: unknown app ghost (the apps are mail)",
                "s.yaml:4:18: online: expected true or false, found 'sometimes'",
                "s.yaml:4:37: shared: expected true or false, found 'maybe'",
                "s.yaml:6:23: sdk: expected one of msal, msal-android, ws1, found 'blackberry'",
            ])
    }

    @Test func anAppWithABadFieldIsStillKnownToTheSteps() {
        // One mistake, one problem: the launch of `mail` is not also reported as an unknown app.
        let found = problems("apps:\n  - {name: mail, sdk: msal, background: often}\nsteps:\n  - launch: mail\n")
        #expect(found == ["s.yaml:2:41: background: expected true or false, found 'often'"])
    }

    @Test func marksAreOneBased() {
        #expect(
            problems("x: 1\n") == [
                "s.yaml:1:1: unknown key x in the scenario (expected name, tags, device, users, apps, steps)"
            ])
        #expect(problems("\n\n   bad: 1\n").first?.hasPrefix("s.yaml:3:4: unknown key bad") == true)
    }

    @Test func aFileThatCannotBeReadIsOneProblemAtItsStart() {
        let path = "/nonexistent/sdlab/scenario.yaml"
        #expect(throws: ScenarioProblems.self) { try Scenario.load(path: path) }
        do {
            _ = try Scenario.load(path: path)
        } catch {
            #expect(error.problems.count == 1)
            #expect(error.problems.first?.location == Location(file: path, line: 1, column: 1))
            #expect(error.description == "\(path):1:1: cannot read the scenario: no such file")
        }
    }

    @Test func loadReadsAFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/example.yaml"
        try specExample.write(toFile: path, atomically: true, encoding: .utf8)
        // The example's hook, beside it.
        _ = FileManager.default.createFile(
            atPath: folder + "/my-cleanup.sh", contents: Data("#!/bin/sh\n".utf8),
            attributes: [.posixPermissions: 0o755])
        let scenario = try Scenario.load(path: path)
        #expect(scenario.file == path && scenario.steps.count == 11)
        #expect(scenario.steps.first?.location == Location(file: path, line: 18, column: 5))
    }
}

extension ProblemTests {
    @Test func quotedTextIsShortAndOnOneLine() {
        let found = problems("\"a\\nvery long key that goes on and on and on and on\": 1\n")
        #expect(
            found == [
                "s.yaml:1:1: unknown key a\\nvery long key that goes on and on and … in the scenario (expected name, tags, device, users, apps, steps)"
            ])
    }

    @Test func aDirectoryIsNotAScenario() {
        #expect(
            throws: ScenarioProblems([
                ScenarioProblem(
                    location: Location(file: "/", line: 1, column: 1),
                    message: "cannot read the scenario: it is a directory")
            ])
        ) {
            try Scenario.load(path: "/")
        }
    }
}
