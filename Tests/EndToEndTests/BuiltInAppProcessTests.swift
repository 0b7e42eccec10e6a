import DBusKit
import DeviceContract
import DeviceLaunch
import DeviceProcesses
import Foundation
import SharedDevice
import TestSupport
import Testing

/// Real app processes on a real bus with the real hub (Docs/behaviour.md §3–§8).
@Suite(.tags(.device), .devicesWanted, .serialized, .timeLimit(.minutes(2)))
struct BuiltInAppProcessTests {
    static let hub1 = HubMethod.interface

    @Test func aPostReachesABackgroundModeAppWhichCleansUpAtOnce() async throws {
        try await AppDevice.with { lab in
            try await lab.connection.checkOut("cou1")
            try await lab.launch(AppSpec(name: "mail", sdk: .msal, backgroundMode: true))
            let mail = lab.app("mail")
            try await mail.write(.sensitive, count: 3)
            try await mail.write(.plain, count: 2)
            try await mail.write(.external, count: 2)
            #expect(try await mail.snapshot().displayed.count == 7)
            #expect(lab.readable(in: "mail").count == 5, "external records need the key the app holds in memory only")
            try await mail.background()

            try await lab.hub(Self.hub1, "CheckIn")
            try await mail.settle()

            let snapshot = try await mail.snapshot()
            #expect(snapshot.user == nil && snapshot.previous == "cou1")
            #expect(snapshot.callbacks == ["current-account(cou1,none)", "current-account(none,cou1)"])
            #expect(lab.readable(in: "mail").isEmpty)
            let hub = try lab.trace("hub.jsonl"), app = try lab.trace("app-mail.jsonl")
            let committed = try #require(hub.last { $0["event"] as? String == "session-changed" }?["t"] as? Int)
            let heard = try #require(app.first { $0["event"] as? String == "post-received" }?["t"] as? Int)
            let clean = try #require(app.first { $0["event"] as? String == "cleanup-finished" }?["t"] as? Int)
            #expect(committed < heard && heard < clean)
        }
    }

    @Test func aStoppedAppHearsNothingUntilResumedThenConvergesInOneCheck() async throws {
        try await AppDevice.with { lab in
            try await lab.connection.checkOut("cou1")
            let notes = try await lab.launch(AppSpec(name: "notes", sdk: .msal))
            try await lab.app("notes").write(.plain, count: 2)
            try await lab.app("notes").background()
            try notes.suspend()

            try await lab.hub(Self.hub1, "CheckIn")
            try await lab.hub(Self.hub1, "CheckOut", ["cou2", "cou2"])
            for _ in 0..<50 { try lab.connection.post(NotifyCenter.accountChanged) }
            await lab.connection.flush()
            let whileStopped = try lab.events("app-notes.jsonl")
            #expect(!whileStopped.contains("post-received"))
            #expect(lab.readable(in: "notes").count == 2, "nothing is cleaned while the app is stopped")

            notes.resume()
            try await lab.app("notes").settle()
            let snapshot = try await lab.app("notes").snapshot()
            #expect(snapshot.callbacks == ["current-account(cou1,none)", "current-account(cou2,cou1)"])
            #expect(snapshot.checks == 2, "every pending post and the resume make one check")
            #expect(snapshot.user == "cou2" && lab.readable(in: "notes").isEmpty)
        }
    }

    @Test func aSpoofedPostCausesARecheckAndNoWipe() async throws {
        try await AppDevice.with { lab in
            try await lab.connection.checkOut("cou1")
            try await lab.launch(AppSpec(name: "mail", sdk: .msal, backgroundMode: true))
            try await lab.app("mail").write(.sensitive, count: 2)
            try lab.connection.post(NotifyCenter.accountChanged)
            await lab.connection.flush()
            try await lab.app("mail").settle()
            let snapshot = try await lab.app("mail").snapshot()
            #expect(snapshot.callbacks == ["current-account(cou1,none)", "current-account(cou1,cou1)"])
            #expect(snapshot.user == "cou1" && snapshot.displayed.count == 2 && lab.readable(in: "mail").count == 2)
        }
    }

    @Test func androidReportsAccountChangedThenLoaded() async throws {
        try await AppDevice.with { lab in
            try await lab.connection.checkOut("cou1")
            try await lab.launch(
                AppSpec(name: "scanner", sdk: .msalAndroid, backgroundMode: true, cleanup: .cacheCommon))
            try await lab.app("scanner").write(.plain, count: 1)
            try await lab.app("scanner").write(.common, count: 1)
            try await lab.hub(Self.hub1, "CheckIn")
            try await lab.app("scanner").settle()
            let snapshot = try await lab.app("scanner").snapshot()
            #expect(
                snapshot.callbacks == [
                    "account-changed(none,cou1)", "account-loaded(cou1)",
                    "account-changed(cou1,none)", "account-loaded(none)",
                ])
            #expect(lab.readable(in: "scanner").map(\.kind) == [.common], "cache-common keeps common data only")
        }
    }

    /// Docs/behaviour.md §6: no broadcast; one callback of each kind per opportunity, however many
    /// changes; blocked until relaunched.
    @Test func workspaceOneLearnsOnlyAtItsOpportunities() async throws {
        try await AppDevice.with { lab in
            try await lab.connection.checkOut("cou1")
            var inventory = try await lab.launch(AppSpec(name: "inventory", sdk: .ws1))
            var app = lab.app("inventory")
            try await app.write(.sensitive, count: 2)
            #expect(try await app.snapshot().callbacks == ["initial-check"])

            for user in ["cou2", "cou1"] {
                try await lab.hub(Self.hub1, "CheckIn")
                try await lab.hub(Self.hub1, "CheckOut", [.string(user), .string(user)])
            }
            try await app.settle()
            #expect(try await app.snapshot().callbacks == ["initial-check"], "no broadcast reaches Workspace ONE")
            #expect(lab.readable(in: "inventory").count == 2)

            try await app.background()
            try await app.foreground()
            var snapshot = try await app.snapshot()
            #expect(snapshot.callbacks == ["initial-check", "wipe", "user-changed"])
            #expect(snapshot.user == "cou1" && lab.readable(in: "inventory").isEmpty)

            inventory.terminate()
            try await lab.hub(Self.hub1, "CheckIn")
            inventory = try await lab.launch(inventory.spec)
            app = lab.app("inventory")  // the new process, under the same name
            snapshot = try await app.snapshot()
            #expect(snapshot.callbacks == ["wipe", "initial-check(sharedDeviceNotCheckedOut)"] && snapshot.blocked)

            try await lab.hub(Self.hub1, "CheckOut", ["cou2", "cou2"])
            try await app.foreground()
            snapshot = try await app.snapshot()
            #expect(
                snapshot.callbacks == ["wipe", "initial-check(sharedDeviceNotCheckedOut)"] && snapshot.blocked,
                "blocked until launched again")

            inventory.terminate()
            inventory = try await lab.launch(inventory.spec)
            app = lab.app("inventory")
            snapshot = try await app.snapshot()
            #expect(
                snapshot.callbacks == ["user-changed", "initial-check"] && !snapshot.blocked && snapshot.user == "cou2")
        }
    }

    @Test func aVeryFirstLaunchOnACheckedInDeviceIsBlocked() async throws {
        try await AppDevice.with { lab in
            try await lab.hub(Self.hub1, "Enroll", ["stage", "stage"])
            try await lab.launch(AppSpec(name: "inventory", sdk: .ws1))
            let snapshot = try await lab.app("inventory").snapshot()
            #expect(
                snapshot.callbacks == ["initial-check(sharedDeviceNotCheckedOut)"] && snapshot.blocked
                    && snapshot.user == nil)
            await #expect(throws: DBusError.self) { try await lab.app("inventory").write(.plain, count: 1) }
        }
    }

    /// The app dies in the middle of its cleanup (a hook that hangs the first time); launched
    /// again, it finishes the cleanup before anything else, and nothing of cou1 is left.
    @Test func aKillDuringCleanupThenARelaunchLeavesNothing() async throws {
        try await AppDevice.with { lab in
            let hook = """
                if [ -e "$SDLAB_CONTAINER/hook-ran" ]; then rm -rf "$SDLAB_CONTAINER/documents/$SDLAB_PREVIOUS_USER"; \
                else touch "$SDLAB_CONTAINER/hook-ran"; echo $$ > "$SDLAB_CONTAINER/hook.pid"; exec sleep 60; fi
                """
            let spec = AppSpec(name: "notes", sdk: .msal, backgroundMode: true, cleanup: .hook(command: hook))
            try await lab.connection.checkOut("cou1")
            let notes = try await lab.launch(spec)
            try await lab.app("notes").write(.plain, count: 3)
            try await lab.hub(Self.hub1, "CheckIn")
            let container = RunFolder.container(of: "notes", in: lab.directory)
            try await eventually("the hook runs") { FileManager.default.fileExists(atPath: container + "/hook.pid") }
            if let text = try? String(contentsOfFile: container + "/hook.pid", encoding: .utf8),
                let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                lab.adopt(ChildProcess(pid: pid))
            }
            notes.crash()
            #expect(lab.readable(in: "notes").count == 3)

            try await lab.launch(spec)
            #expect(lab.readable(in: "notes").isEmpty)
            let events = try lab.events("app-notes.jsonl")
            let relaunch = try #require(events.lastIndex(of: "launched"))
            let resumed = try #require(events.lastIndex(of: "cleanup-resumed"))
            let finished = try #require(events[relaunch...].firstIndex(of: "cleanup-finished"))
            let firstCheck = try #require(events[relaunch...].firstIndex(of: "check-started"))
            #expect(relaunch < resumed && resumed < finished && finished < firstCheck)
            #expect(
                events[firstCheck...].filter { $0 == "cleanup-started" }.isEmpty, "the finished job is not repeated")
        }
    }

    /// The hub gone: the app keeps its user and data and changes nothing until it answers again.
    @Test func anUnreachableHubChangesNothing() async throws {
        try await AppDevice.with { lab in
            try await lab.connection.checkOut("cou1")
            try await lab.launch(AppSpec(name: "mail", sdk: .msal, backgroundMode: true))
            try await lab.app("mail").write(.plain, count: 2)
            lab.device.hub.signal(SIGKILL)
            _ = lab.device.hub.waitForExit(timeout: .seconds(5))

            try lab.connection.post(NotifyCenter.accountChanged)
            await lab.connection.flush()
            try await lab.app("mail").settle()
            var snapshot = try await lab.app("mail").snapshot()
            #expect(snapshot.user == "cou1" && snapshot.error == "HubUnreachable" && snapshot.displayed.count == 2)
            #expect(snapshot.callbacks == ["current-account(cou1,none)"])

            let (hub, stdout) = try ChildProcess.spawn(
                sdlabPath,
                [
                    "hub", "--bus", lab.address, "--state", RunFolder.hubState(in: lab.directory),
                    "--name-file", RunFolder.hubName(in: lab.directory),
                ],
                stdout: .pipe, stderr: .null, newSession: true)
            lab.adopt(hub)
            #expect(await offPool { LineReader(fd: stdout!).readLine(timeout: .seconds(15)) } == "ready")
            try await lab.app("mail").foreground()
            snapshot = try await lab.app("mail").snapshot()
            #expect(snapshot.error == nil && snapshot.callbacks.last == "current-account(cou1,cou1)")
        }
    }
}

extension BuiltInAppProcessTests {
    /// Docs/behaviour.md §8 on real containers: what the device attacker can still read after a check-in,
    /// per policy. Each policy keeps exactly what its name says.
    @Test func eachPolicyLeavesWhatItNamesAndNothingElse() async throws {
        let kept: [(CleanupPolicy, [RecordKind])] = [
            (.wipeAll, []), (.retainPreferences, [.preferences]), (.cacheCommon, [.common]),
            (.externalKey, []), (.keepAll, [.sensitive, .plain, .preferences, .common]),
        ]
        try await AppDevice.with { lab in
            try await lab.connection.checkOut("cou1")
            for (index, (policy, _)) in kept.enumerated() {
                let name = "app\(index)"
                try await lab.launch(AppSpec(name: name, sdk: .msal, backgroundMode: true, cleanup: policy))
                for kind in RecordKind.allCases { try await lab.app(name).write(kind, count: 1) }
            }
            try await lab.hub(Self.hub1, "CheckIn")
            for (index, (policy, kinds)) in kept.enumerated() {
                try await lab.app("app\(index)").settle()
                let readable = lab.readable(in: "app\(index)")
                #expect(Set(readable.map(\.kind)) == Set(kinds), "\(policy.name)")
                #expect(readable.allSatisfy { $0.user == "cou1" })
            }
            let sealed = RunFolder.container(of: "app3", in: lab.directory) + "/documents/cou1/external-1-1.sealed"
            #expect(FileManager.default.fileExists(atPath: sealed), "external-key keeps the ciphertext, unreadable")

            try await lab.hub(Self.hub1, "CheckOut", ["cou1", "cou1"])
            try await lab.app("app1").foreground()
            #expect(try await lab.app("app1").snapshot().preferencesApplied, "cou1's preferences are re-applied")
        }
    }

    @Test func theAppsOwnSignInAndSignOutReachTheBroker() async throws {
        try await AppDevice.with { lab in
            try await lab.hub(Self.hub1, "Enroll", ["stage", "stage"])
            try await lab.launch(AppSpec(name: "mail", sdk: .msal, backgroundMode: true))
            let mail = lab.app("mail")
            await #expect(throws: DBusError.self) { try await mail.signIn("cou1", password: "wrong") }
            try await mail.signIn("cou1", password: "cou1")
            #expect(try await lab.connection.session().user == "cou1")
            try await mail.write(.plain, count: 2)
            try await mail.signOut()
            let snapshot = try await mail.snapshot()
            #expect(snapshot.user == nil && lab.readable(in: "mail").isEmpty)
            #expect(snapshot.callbacks.prefix(2) == ["current-account(none,none)", "current-account(cou1,none)"])
            #expect(try await lab.connection.session().state == "checked-in")
        }
    }
}

extension BuiltInAppProcessTests {
    /// A team's app on the device host runs as a fleet member with its own cleanup.
    @Test func theExampleAppRunsWithItsOwnCleanup() async throws {
        let example = URL(fileURLWithPath: sdlabPath).deletingLastPathComponent().appendingPathComponent(
            "ExampleMSALNotes"
        ).path
        try await AppDevice.with { lab in
            try await lab.connection.checkOut("cou1")
            try await lab.launch(
                AppSpec(
                    name: "notes", sdk: .msal, backgroundMode: true, cleanup: .own(keeps: [.common]),
                    executable: example))
            for kind in [RecordKind.plain, .sensitive, .preferences] {
                try await lab.app("notes").write(kind, count: 2)
            }
            try await lab.hub(Self.hub1, "CheckIn")
            try await lab.app("notes").settle()
            #expect(lab.readable(in: "notes").isEmpty)
            #expect(try await lab.app("notes").snapshot().callbacks.last == "current-account(none,cou1)")
            // The trace says what ran: the app's own code, keeping what it declared; and it was clean.
            let trace = try lab.trace("app-notes.jsonl")
            let cleanup = try #require(trace.first { $0["event"] as? String == "cleanup-finished" })
            #expect(cleanup["policy"] as? String == "own" && cleanup["keeps"] as? String == "common", "\(cleanup)")
            #expect(trace.first { $0["event"] as? String == "launched" }?["policy"] as? String == "own")
        }
    }

    /// What runs is what was declared: an app with cleanup code of its own is not run as a
    /// built-in policy, and `own` is refused to an app without any.
    @Test func aCleanupThatIsNotTheAppsIsRefusedAtLaunch() async throws {
        let example = URL(fileURLWithPath: sdlabPath).deletingLastPathComponent().appendingPathComponent(
            "ExampleMSALNotes"
        ).path
        try await AppDevice.with { lab in
            let declared = AppSpec(name: "notes", sdk: .msal, cleanup: .wipeAll, executable: example)
            await #expect { try await lab.launch(declared) } throws: { error in
                "\(error)".contains("it cleans up with code of its own, not wipe-all: declare `cleanup: own`")
            }
            await #expect { try await lab.launch(AppSpec(name: "mail", sdk: .msal, cleanup: .own())) } throws: {
                error in
                "\(error)".contains("--cleanup own: this app has no cleanup code of its own")
            }
        }
    }
}
