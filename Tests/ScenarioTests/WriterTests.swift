import Foundation
import Scenario
import SharedDevice
import Testing

/// `Scenario.yaml` reads back, through `Scenario.parse`, to the scenario it was written from.
@Suite struct WriterTests {
    static let library = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Scenarios").path
    static let libraryFiles = Scenario.files(in: [library])

    /// The written text read back, or an issue with the text and its problems.
    static func readBack(_ scenario: Scenario, sourceLocation: SourceLocation = #_sourceLocation) -> Scenario? {
        let text = scenario.yaml
        do {
            return try Scenario.parse(text, file: "written.yaml")
        } catch {
            Issue.record("\(error)\n\(text)", sourceLocation: sourceLocation)
            return nil
        }
    }

    @Test func theLibraryIsThere() {
        #expect(Self.libraryFiles.count >= 30, "\(Self.library)")
    }

    @Test(arguments: libraryFiles) func everyLibraryScenarioRoundTrips(_ file: String) throws {
        let scenario = try Scenario.load(path: file)
        let again = try #require(Self.readBack(scenario))
        #expect(again.relocated == scenario.relocated, "\(scenario.yaml)")
    }

    @Test func theSpecExampleReadsLikeAHandWrittenFile() throws {
        let text = try #require(parsed(specExample)).yaml
        #expect(text.hasPrefix("name: \"Check-in reaches MSAL apps at once and Workspace ONE apps on next launch\"\n"))
        #expect(!text.contains("device:"))
        for line in [
            "  - {name: cou2, password: s3cret, first_name: Ana, email: ana@example.test}",
            "  - {name: mail, sdk: msal, background: true}",
            "  - {name: scanner, sdk: msal-android, cleanup: {hook: \"\(FileManager.default.currentDirectoryPath)/my-cleanup.sh\"}}",
            "  - {name: fleet50, sdk: msal, background: true}",
            "  - enroll: stage",
            "  - launch: [mail, notes, inventory]",
            "  - launch: inventory",
            "  - write: {app: mail, kind: sensitive, count: 5}",
            "  - checkin",
            "  - settle",
            "  - expect:",
            "      hub: {state: checked-in, user: none}",
            "      mail: {user: none, leaks: 0, exposed: 0, mechanism: signal, within: 50ms}",
            "      inventory: {callbacks: [wipe], leaks: 0, retained: {common: 0}}",
        ] {
            #expect(text.contains(line + "\n"), "\(line)\n\(text)")
        }
    }

    @Test func everyStepAndCheckRoundTrips() throws {
        let scenario = Self.everything
        let again = try #require(Self.readBack(scenario))
        #expect(again.relocated == scenario.relocated, "\(scenario.yaml)")
        #expect(again.name == scenario.name && again.users == scenario.users)
        let text = scenario.yaml
        for line in [
            "  - {name: \"123\"}", "  - launch: all", "  - {background: [inventory, fleet2], error: NotRunning}",
            "  - checkin: {error: NotCheckedOut}", "  - unlock: ana", "  - post: \"yes\"", "  - post: \"  lead\"",
            "      \"null\": {user: \"yes\", state: blocked, mechanism: launch, leaks: 4}",
        ] {
            #expect(text.contains(line + "\n"), "\(line)\n\(text)")
        }
    }

    @Test func cleanupDeclarationsAreWrittenAsDeclared() throws {
        let text = Self.everything.yaml
        for line in [
            "  - {name: own, sdk: msal, cleanup: own, executable: \"/opt/own\"}",
            "  - {name: kept, sdk: ws1, cleanup: {keeps: [preferences, common]}, executable: \"/opt/kept\"}",
            "  - {name: hooked, sdk: msal, cleanup: {hook: \"/opt/clean.sh --all\", keeps: [preferences]}}",
        ] {
            #expect(text.contains(line + "\n"), "\(line)\n\(text)")
        }
        let again = try #require(Self.readBack(Self.everything))
        #expect(again.apps.map(\.cleanup) == Self.everything.apps.map(\.cleanup))
    }

    @Test func durationsAreWrittenInTheLargestExactUnit() throws {
        let durations: [Duration] = [
            .zero, .seconds(2), .milliseconds(250), .milliseconds(1500), .microseconds(1500),
            .nanoseconds(7), .nanoseconds(1_000_001), .seconds(86_400 * 365),
        ]
        let scenario = Scenario(
            name: "waits", file: "s.yaml", device: Device(), users: Scenario.defaultUsers, apps: [],
            steps: durations.map { Step(location: Self.here, kind: .wait($0)) })
        let text = scenario.yaml
        for written in ["0s", "2s", "250ms", "1500ms", "1500us", "7ns", "1000001ns", "31536000s"] {
            #expect(text.contains("  - wait: \(written)\n"), "\(written)\n\(text)")
        }
        #expect(try #require(Self.readBack(scenario)).relocated == scenario.relocated)
    }

    @Test func defaultsAreLeftOutAndAnEmptyDirectoryIsKept() throws {
        let bare = Scenario(
            name: "bare", file: "s.yaml", device: Device(), users: Scenario.defaultUsers, apps: [], steps: [])
        #expect(bare.yaml == "name: bare\n")
        var empty = bare
        empty.users = []
        #expect(empty.yaml == "name: bare\nusers: []\n")
        #expect(try #require(Self.readBack(empty)).relocated == empty.relocated)
    }

    // MARK: - A scenario with every step, every check and awkward text

    static let here = Location(file: "s.yaml", line: 1, column: 1)
    /// Text YAML would read as syntax, a number or a keyword, or fold or refuse unescaped (as
    /// post names, which are 1 to 511 bytes: no empty one).
    static let awkward = [
        "a: b", "#x", "yes", "  lead", "quote\"d", "ünïcode", "123", "back\\slash", "tab\tand\nline",
        "bell\u{7}", "line\u{2028}sep", "zero\u{FEFF}width", "next\u{85}line", "😀", "- item", "[x]", "{y}",
        "*star", "&and", "!bang", "%pc", "@at", "`tick", "'single'", "null", "~", "NO", "trailing ", "1e3", ".inf",
    ]

    static func step(_ kind: StepKind, error: DeviceError? = nil) -> Step {
        Step(location: here, error: error, kind: kind)
    }

    static func check(_ check: ExpectField.Check) -> ExpectField {
        ExpectField(location: here, check: check)
    }

    /// An `expect` step with these checks by target, in order.
    static func expect(_ targets: KeyValuePairs<ExpectTarget, [ExpectField.Check]>) -> Step {
        step(.expect(targets.map { .init(target: $0.key, location: here, fields: $0.value.map(check)) }))
    }

    static let users = [
        UserEntry(user: DirectoryUser(name: "boss", role: .staging, staging: .singleUser), password: "a: b"),
        UserEntry(user: DirectoryUser(name: "stage", role: .staging), password: "stage"),
        UserEntry(
            user: DirectoryUser(
                name: "ana", firstName: "Ána", lastName: "López", email: "ana@corp.example",
                domain: "corp.test", groupID: "night shift"), password: "quote\"d"),
        UserEntry(user: DirectoryUser(name: "123"), password: "123"),
        UserEntry(user: DirectoryUser(name: "yes"), password: "#x"),
        UserEntry(user: DirectoryUser(name: "x.y-z", firstName: "", domain: "other.test"), password: "  lead"),
    ]

    static let apps = [
        AppEntry(name: "mail", sdk: .msal, background: true, cleanup: .retainPreferences, location: here),
        AppEntry(
            name: "notes", sdk: .msalAndroid,
            cleanup: .hook(command: #"rm -rf "$SDLAB_CONTAINER/docs/$SDLAB_PREVIOUS_USER" && echo 'done: #1' \\"#),
            executable: "/opt/team app/bin/notes: v2", location: here),
        AppEntry(name: "inventory", sdk: .ws1, cleanup: .cacheCommon, location: here),
        AppEntry(name: "null", sdk: .msal, cleanup: .externalKey, location: here),
        AppEntry(name: "On", sdk: .msal, background: true, cleanup: .keepAll, location: here),
        AppEntry(name: "fleet2", sdk: .ws1, cleanup: .wipeAll, executable: "/", location: here),
        AppEntry(name: "own", sdk: .msal, cleanup: .own(), executable: "/opt/own", location: here),
        AppEntry(
            name: "kept", sdk: .ws1, cleanup: .own(keeps: [.common, .preferences]), executable: "/opt/kept",
            location: here),
        AppEntry(
            name: "hooked", sdk: .msal, cleanup: .hook(command: "/opt/clean.sh --all", keeps: [.preferences]),
            location: here),
    ]

    static let steps = sessionSteps + appSteps + awkward.map { step(.post(name: $0)) } + hubSteps + expectSteps

    static let sessionSteps: [Step] = [
        step(.enroll(user: "boss", password: nil)),
        step(.enroll(user: "boss", password: "a: b"), error: .alreadyEnrolled),
        step(.enroll(user: "ana", password: nil), error: .notStagingUser),
        step(.checkout(user: "ana", password: "quote\"d")),
        step(.checkout(user: "123", password: nil), error: .alreadyCheckedOut),
        step(.checkout(user: "yes", password: ""), error: .badCredentials),
        step(.checkin()),
        step(.checkin(), error: .notCheckedOut),
        step(.checkout(user: "ana", password: nil, from: .console)),
        step(.checkout(user: "ana", password: "x", from: .console), error: .alreadyCheckedOut),
        step(.checkin(from: .console)),
        step(.checkin(from: .console), error: .locked),
        step(.signin(app: "mail", user: "yes", password: "#x")),
        step(.signin(app: "null", user: "ana", password: nil), error: .alreadySignedIn),
        step(.signout(app: "mail")),
        step(.signout(app: "On"), error: .noCurrentAccount),
        step(.removeAccount),
        step(.removeAccount, error: .noCurrentAccount),
        step(.lock),
        step(.lock, error: .locked),
        step(.unlock(app: nil, user: "ana", password: nil)),
        step(.unlock(app: "mail", user: "x.y-z", password: "  lead")),
        step(.unlock(app: nil, user: "123", password: "ünïcode"), error: .badCredentials),
        step(.wipe),
        step(.wipe, error: .notEnrolled),
    ]

    static let appSteps: [Step] = [
        step(.lifecycle(.launch, apps: apps.map(\.name))),
        step(.lifecycle(.launch, apps: apps.map(\.name).reversed())),
        step(.lifecycle(.terminate, apps: ["mail"])),
        step(.lifecycle(.crash, apps: ["null", "On"])),
        step(.lifecycle(.foreground, apps: ["notes"]), error: .notRunning),
        step(.lifecycle(.background, apps: ["inventory", "fleet2"]), error: .notRunning),
        step(.lifecycle(.suspend, apps: ["On"])),
        step(.lifecycle(.resume, apps: ["On", "mail"])),
        step(.write(app: "inventory", kind: .common, count: 1)),
        step(.write(app: "null", kind: .external, count: 7), error: .notCheckedOut),
        step(.network(online: false)),
        step(.network(online: true), error: .offline),
    ]

    static let hubSteps: [Step] = [
        step(.hub(.crash)),
        step(.hub(.restart)),
        step(.wait(.milliseconds(250))),
        step(.wait(.microseconds(3))),
        step(.settle(nil)),
        step(.settle(.seconds(3))),
        step(
            .repeat(
                times: 3,
                steps: [
                    step(.checkout(user: "ana", password: nil)),
                    step(
                        .repeat(
                            times: 2,
                            steps: [
                                step(.checkin(), error: .notCheckedOut),
                                expect(["hub": [.generation(7)]]),
                            ])),
                    step(.settle(.milliseconds(1500))),
                ])),
    ]

    static let mailChecks: [ExpectField.Check] = [
        .state(.foreground), .user(nil), .previous("yes"),
        .callbacks(["current-account(ana,none)", "current-account(x.y-z,123)"]), .error(nil),
        .leaks(0), .exposed(2), .retained(preferences: 1, common: nil), .records(5), .prefsApplied, .mechanism(.signal),
        .within(.milliseconds(50)),
    ]

    static let expectSteps: [Step] = [
        expect([
            "hub": [
                .hubState(.checkedOut), .user("ana"), .generation(.max), .online(false), .locked(true),
                .foreground("hub"),
            ],
            "mail": mailChecks,
            "notes": [
                .error("HubUnreachable"), .previous(nil), .user("123"), .retained(preferences: nil, common: 3),
                .callbacks([]), .within(.microseconds(1500)), .state(.notRunning), .mechanism(.none),
            ],
            "null": [.user("yes"), .state(.blocked), .mechanism(.launch), .leaks(4)],
            "all": [.retained(preferences: 0, common: 0), .state(.background), .mechanism(.foreground)],
            "msal": [.state(.suspended), .mechanism(.resume), .within(.seconds(1))],
            "ws1": [.records(0), .exposed(0)],
        ]),
        expect(["hub": [.hubState(.checkedIn), .user(nil), .foreground("null"), .online(true), .locked(false)]]),
        expect(["hub": [.hubState(.unenrolled), .foreground("On")], "fleet2": [.user("x.y-z")]]),
        expect(["hub": [.account("ana"), .user("x.y-z")]]),
        expect(["hub": [.account(nil), .foreground("hub")]]),
    ]

    static let everything = Scenario(
        name: "Every: step # of \"the\" model\n\ton ünïcode 😀", file: "s.yaml",
        device: Device(
            policy: HubModel.Policy(shared: false, broadcastOnSignIn: true, passcode: true, broker: .authenticator),
            online: false),
        users: users, apps: apps, steps: steps)
}
