import DeviceProcesses
import Foundation
import TestSupport
import Testing

/// A team's own app code in a device (Docs/your-app.md): the examples, written against MSAL,
/// Workspace ONE, the Darwin center, the keychain and SQLite, run on the device host, and each
/// broken variant is judged by the bytes it leaves.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct TeamAppTests {
    static let built = URL(fileURLWithPath: sdlabPath).deletingLastPathComponent()
    static func example(_ name: String) -> String { built.appendingPathComponent(name).path }
    /// The Info.plist of the example in Sources/Examples/NAME.
    static func infoPlist(_ example: String) -> String {
        URL(fileURLWithPath: RunCommandTests.library).deletingLastPathComponent()
            .appendingPathComponent("Sources/Examples/\(example)/Info.plist").path
    }

    /// A scenario of one team app, `notes` on MSAL (the example `app`): a worker checks out and
    /// launches it, then `steps` (lines of the `steps:` list).
    static func notesScenario(_ name: String, app: String, then steps: String) -> String {
        """
        name: \(name)
        apps:
          - {name: notes, sdk: msal, background: true, executable: \(example(app)), cleanup: own}
        steps:
          - enroll: stage
          - checkout: cou1
          - launch: notes
        \(steps)
        """
    }

    @Test(.tags(.device), .devicesWanted) func theExamplesPassTheirScenarios() async throws {
        let scenarios = [
            "team-msal-notes-app-cleans-up-on-check-in.yaml", "team-ws1-inventory-app-wipes-at-next-foreground.yaml",
            "team-sqlite-shifts-app-deletes-rows-for-good.yaml", "team-msal-previous-account-across-launches.yaml",
            "team-swiftui-notes-app-checks-when-its-scene-becomes-active.yaml",
        ].map { RunCommandTests.library + "/" + $0 }
        let result = try await run(sdlabPath, ["run"] + scenarios, timeout: .seconds(120))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("5 of 5 scenarios passed"), "\(result.stdout)")
    }

    /// Expecting no leak of the broken variants fails the run, naming the file, the user, the
    /// kind and how the scan read it: a cache the app forgot, the keychain (in base64), and rows
    /// a DELETE left in SQLite's write-ahead log.
    @Test(.tags(.device), .devicesWanted) func aBrokenCleanupFailsNamingWhatItLeft() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-team")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let scenario = """
            name: broken team apps
            apps:
              - {name: caches, sdk: msal, background: true, executable: \(Self.example("ExampleMSALNotesForgetsCaches")), cleanup: own}
              - {name: keychain, sdk: msal, background: true, executable: \(Self.example("ExampleMSALNotesForgetsKeychain")), cleanup: own}
              - {name: wal, sdk: msal, background: true, executable: \(Self.example("ExampleSQLiteShiftsLeavesWAL")), cleanup: own}
            steps:
              - enroll: stage
              - checkout: cou1
              - launch: [caches, keychain, wal]
              - write: {app: caches, kind: plain, count: 2}
              - write: {app: keychain, kind: sensitive, count: 2}
              - write: {app: wal, kind: plain, count: 2}
              - background: wal
              - checkin
              - foreground: wal
              - settle
              - expect:
                  caches: {user: none, leaks: 0}
                  keychain: {user: none, leaks: 0}
                  wal: {user: none, leaks: 0}
            """
        let result = try await run(
            sdlabPath, ["run", try writeScenario(scenario, named: "broken.yaml", in: folder)],
            environment: environment(with: ["TMPDIR": folder]), timeout: .seconds(120))
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let out = result.stdout
        #expect(out.contains("caches.leaks: expected 0, got 2"), "\(out)")
        #expect(out.contains("caches: leaks 2: cou1 plain ×2 (home/Library/Caches/previews/cou1-"), "\(out)")
        #expect(out.contains("keychain: leaks 2: cou1 sensitive ×2 (keychain/items.json [base64"), "\(out)")
        #expect(
            out.contains("wal: leaks 2: cou1 plain ×2 (home/Library/Application Support/shifts.sqlite-wal"), "\(out)")
        // Exposure is measured from the bytes: the pairs stay open, with what the scan found.
        for (app, held) in [("caches", "plain"), ("keychain", "sensitive"), ("wal", "plain")] {
            #expect(
                out.contains("generation 2, \(app) (held cou1/\(held)): cleanup failed: left cou1 \(held) ×2"), "\(out)"
            )
        }
    }

    /// The SwiftUI app `sdlab init --swiftui` writes: its app delegate derives from NSObject and is
    /// made under `@UIApplicationDelegateAdaptor` (the build plugin's initializer), starts MSAL and
    /// hears the broker, so the check-in removes the worker's notes of every kind.
    @Test(.tags(.device), .devicesWanted) func aSwiftUIAppWithAnNSObjectDelegateCleansUp() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-swiftui")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let scenario = TeamAppTests.notesScenario(
            "a SwiftUI app's delegate", app: "ExampleTeamSwiftUINotes",
            then: """
                  - write: {app: notes, kind: plain, count: 2}
                  - write: {app: notes, kind: sensitive, count: 1}
                  - write: {app: notes, kind: preferences, count: 1}
                  - expect:
                      notes: {user: cou1, records: 2}
                  - checkin
                  - settle
                  - expect:
                      notes: {user: none, previous: cou1, leaks: 0, records: 0, mechanism: signal}
                """)
        let result = try await runScenario(scenario, named: "swiftui", in: folder)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("1 of 1 scenarios passed"), "\(result.stdout)")
    }

    /// A cleanup that compresses the previous worker's data has not removed it: the scan reads
    /// inside the archive.
    @Test(.tags(.device), .devicesWanted) func aHookThatCompressesInsteadOfDeletingLeaks() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-gzip")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let scenario = """
            name: gzip is not a cleanup
            apps:
              - {name: mail, sdk: msal, background: true, cleanup: {hook: "gzip -r \\"$SDLAB_CONTAINER/documents\\""}}
            steps:
              - enroll: stage
              - checkout: cou1
              - launch: mail
              - write: {app: mail, kind: plain, count: 3}
              - checkin
              - settle
              - expect:
                  mail: {leaks: 0}
            """
        let result = try await run(
            sdlabPath, ["run", try writeScenario(scenario, named: "gzip.yaml", in: folder)],
            environment: environment(with: ["TMPDIR": folder]), timeout: .seconds(60))
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("mail.leaks: expected 0, got 3"), "\(result.stdout)")
        #expect(result.stdout.contains("plain-1-3.txt.gz [gzip]"), "\(result.stdout)")
    }

    /// The sandbox: a write outside the container fails as on a phone, and the run names it.
    @Test(.tags(.device), .devicesWanted) func aWriteOutsideTheContainerIsRefusedAndReported() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-outside")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let scenario = TeamAppTests.notesScenario(
            "a write outside the container", app: "ExampleMSALNotesExportsOutside",
            then: """
                  - write: {app: notes, kind: plain, count: 1}
                  - checkin
                  - settle
                  - expect:
                      notes: {user: none, leaks: 0}
                """)
        let result = try await run(
            sdlabPath, ["run", try writeScenario(scenario, named: "outside.yaml", in: folder)],
            environment: environment(with: ["TMPDIR": folder]), timeout: .seconds(60))
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        // The watch names the file; the kernel, which holds writes where the runner reads its audit,
        // names the folder the file would be made in.
        let watched = result.stdout.contains("every write waits for the runner's watch")
        let place = watched ? "/tmp/contoso-notes-export.txt" : "a new file in /tmp"
        #expect(
            result.stdout.contains("notes tried to write outside its container: \(place) (open, refused)"),
            "\(result.stdout)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/contoso-notes-export.txt"))
    }

    /// `check` refuses a program that is no app of a device, saying why.
    @Test func checkRefusesAProgramThatIsNoApp() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-notanapp")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let scenario = """
            name: not an app
            apps:
              - {name: a, sdk: msal, executable: /bin/true, cleanup: own}
            steps:
              - launch: a
            """
        let result = try await run(sdlabPath, ["check", try writeScenario(scenario, named: "true.yaml", in: folder)])
        #expect(result.status == 2)
        #expect(
            result.stderr.contains("executable: /bin/true is a program that serves no dev.sdlab.App1"),
            "\(result.stderr)")
    }

    /// Outside a device the host says what to start, and exits 3.
    @Test func outsideADeviceTheAppSaysWhatToStart() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-nobus")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var bare = ProcessInfo.processInfo.environment
        bare["DBUS_SESSION_BUS_ADDRESS"] = nil
        let result = try await run(
            Self.example("ExampleMSALNotes"),
            ["--name", "notes", "--sdk", "msal", "--container", folder + "/notes", "--cleanup", "own"],
            environment: bare)
        #expect(result.status == 3, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("the app notes cannot start: no device bus"), "\(result.stderr)")
        #expect(result.stderr.contains("sdlab run FILE"), "\(result.stderr)")
    }
}

/// What Foundation and the app print land where iOS would keep them: `UserDefaults.standard`
/// in the container's `Library/Preferences`, read by the scan; stdout in the app's log.
@Suite(.tags(.device), .devicesWanted, .serialized, .timeLimit(.minutes(3)))
struct TeamAppFoundationTests {
    /// A worker's preferences, kept through `UserDefaults.standard` held in a stored property,
    /// outlive a relaunch in the container; the app that forgets them fails naming its plist,
    /// and the correct one passes, with nothing written in the home of whoever ran the scenario.
    /// Each runs from its bundle: the defaults' domain is the identifier of the Info.plist the
    /// scenario gives, and the correct app (which removes the domain by `Bundle.main`'s
    /// identifier) has the one the runner made for it.
    @Test func defaultsLiveInTheContainerAndAForgottenCleanupIsNamed() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-defaults")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let runnerHome = folder + "/runner-home"
        try FileManager.default.createDirectory(atPath: runnerHome, withIntermediateDirectories: true)
        let scenario = """
            name: defaults across a relaunch
            apps:
              - {name: kept, sdk: msal, background: true, executable: \(TeamAppTests.example("ExampleMSALNotes")), cleanup: own}
              - {name: forgot, sdk: msal, background: true, executable: \(TeamAppTests.example("ExampleMSALNotesForgetsDefaults")), cleanup: own, info_plist: \(TeamAppTests.infoPlist("MSALNotes"))}
            steps:
              - enroll: stage
              - checkout: cou1
              - launch: [kept, forgot]
              - write: {app: kept, kind: preferences, count: 2}
              - write: {app: forgot, kind: preferences, count: 2}
              - terminate: [kept, forgot]
              - launch: [kept, forgot]
              - checkin
              - settle
              - expect:
                  kept: {user: none, leaks: 0}
                  forgot: {user: none, leaks: 0}
            """
        let result = try await run(
            sdlabPath, ["run", "--keep", try writeScenario(scenario, named: "defaults.yaml", in: folder)],
            environment: environment(with: ["TMPDIR": folder, "HOME": runnerHome, "XDG_CONFIG_HOME": runnerHome]),
            timeout: .seconds(120))
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let out = result.stdout
        #expect(
            out.contains(
                "forgot: leaks 2: cou1 preferences ×2 (home/Library/Preferences/com.contoso.notes.plist"),
            "\(out)")
        #expect(!out.contains("kept.leaks"), "\(out)")
        #expect(!out.contains("outside its container"), "\(out)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: runnerHome).isEmpty)
    }

    /// The correct app passes, every time: Foundation never writes outside the container.
    @Test(arguments: 1...3) func aCorrectAppKeepingDefaultsPasses(attempt: Int) async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-defaults-ok")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let scenario = TeamAppTests.notesScenario(
            "defaults removed with the worker", app: "ExampleMSALNotes",
            then: """
                  - write: {app: notes, kind: preferences, count: 3}
                  - write: {app: notes, kind: plain, count: 2}
                  - checkin
                  - settle
                  - expect:
                      notes: {user: none, leaks: 0, mechanism: signal, within: 2s}
                """)
        let result = try await run(
            sdlabPath, ["run", try writeScenario(scenario, named: "defaults-ok.yaml", in: folder)],
            environment: environment(with: ["TMPDIR": folder]), timeout: .seconds(60))
        #expect(result.status == 0, "attempt \(attempt): \(result.stdout)\(result.stderr)")
    }

    /// What the app prints on stdout (its MSAL logger, its own `print`) goes to its log with
    /// stderr, before and after it is ready, and never ends it.
    @Test func whatTheAppPrintsGoesToItsLog() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-prints")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let scenario = TeamAppTests.notesScenario(
            "a chatty app", app: "ExampleMSALNotes",
            then: """
                  - write: {app: notes, kind: plain, count: 400}
                  - checkin
                  - settle
                  - expect:
                      notes: {user: none, leaks: 0}
                """)
        let result = try await run(
            sdlabPath, ["run", "--keep", try writeScenario(scenario, named: "prints.yaml", in: folder)],
            environment: environment(with: ["TMPDIR": folder]), timeout: .seconds(120))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let runFolder = try #require(
            try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasPrefix("sdlab-run-") })
        let log = try String(contentsOfFile: "\(folder)/\(runFolder)/logs/app-notes.log", encoding: .utf8)
        #expect(log.components(separatedBy: "saving a plain note").count - 1 == 400, "\(log.suffix(500))")
        #expect(log.contains("MSAL ["), "\(log.suffix(500))")
    }
}
