import DBusKit
import DeviceContract
import DeviceLaunch
import DeviceProcesses
import Foundation
import HubFiles
import SharedDevice
import TestSupport
import Testing

/// The hub process across crashes, restarts and SIGTERM, and the speed of its first post.
@Suite(.tags(.device), .devicesWanted, .serialized) struct HubLifecycleTests {
    static let hub1 = HubMethod.interface
    static let changed = NotifyCenter.accountChanged

    /// A second hub on the device's bus and state file, as a restart after a crash starts it.
    static func restartHub(_ device: DetachedDevice) async throws -> LineProducer {
        let hub = try LineProducer(
            sdlabPath,
            [
                "hub", "--bus", device.address, "--state", RunFolder.hubState(in: device.directory),
            ],
            log: device.directory + "/restarted-hub.log")
        try await hub.waitForLine(containing: "ready")
        return hub
    }

    static func kill9(_ pid: Int32) async throws {
        #expect(kill(pid, SIGKILL) == 0)
        try await eventually("hub \(pid) gone after SIGKILL") { isGone(pid) }
    }

    @Test(.timeLimit(.minutes(3)))
    func aSessionSurvivesAHubCrashAndRestart() async throws {
        try await DetachedDevice.with { device in
            try await withBus(device.address) { bus in
                try await bus.checkOut("cou1")
                try await bus.hub(Self.hub1, "Lock")
            }
            try await Self.kill9(try #require(device.hubPID))
            let restarted = try await Self.restartHub(device)
            defer { restarted.stop() }
            try await withBus(device.address) { bus in
                #expect(try await bus.session() == ("checked-out", "cou1", 1))
                let locked = try await bus.call(
                    destination: DeviceBus.hubName, path: DeviceBus.hubPath,
                    interface: "org.freedesktop.DBus.Properties", member: "Get",
                    [.string(Self.hub1), "Locked"])
                #expect(locked == [.variant(.bool(true))])
                // The users came back with the state: the same password still unlocks.
                try await bus.hub(Self.hub1, "Unlock", ["cou1", "cou1"])
                let posts = try await bus.signals(matching: DeviceBus.posts(of: Self.changed))
                try await bus.hub(Self.hub1, "CheckIn")
                _ = try await next(posts)
                #expect(try await bus.session() == ("checked-in", "", 2))
            }
        }
    }

    /// SIGKILL in the middle of a stream of changes leaves a state file that loads, holding
    /// at least every change the hub acknowledged.
    @Test(.timeLimit(.minutes(3)))
    func aKillDuringChangesLosesNothingAcknowledged() async throws {
        try await DetachedDevice.with { device in
            let hubPID = try #require(device.hubPID)
            let acknowledged = try await withBus(device.address) { bus in
                try await bus.hub(Self.hub1, "Enroll", ["stage", "stage"])
                var acknowledged: UInt64 = 0
                for round in 0..<1000 {
                    do {
                        try await bus.hub(
                            Self.hub1, round % 2 == 0 ? "CheckOut" : "CheckIn",
                            round % 2 == 0 ? ["cou2", "cou2"] : [])
                        acknowledged = UInt64(round + 1)
                    } catch {
                        break  // the hub died under us
                    }
                    if round == 20 { kill(hubPID, SIGKILL) }
                }
                return acknowledged
            }
            #expect(acknowledged >= 20 && acknowledged < 1000)
            try await eventually("hub gone after SIGKILL") { isGone(hubPID) }
            let restarted = try await Self.restartHub(device)
            defer { restarted.stop() }
            let generation = try await withBus(device.address) { try await $0.session().generation }
            #expect(generation >= acknowledged && generation <= acknowledged + 1, "acknowledged \(acknowledged)")
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func sigtermStopsTheHubCleanlyWithItsStateSaved() async throws {
        try await DetachedDevice.with { device in
            try await withBus(device.address) { bus in _ = try await bus.hub(Self.hub1, "Enroll", ["stage", "stage"]) }
            let first = try ChildProcess(pid: #require(device.hubPID))
            #expect(kill(first.pid, SIGTERM) == 0)
            try await eventually("hub gone after SIGTERM") { isGone(first.pid) }
            let restarted = try await Self.restartHub(device)
            #expect(kill(restarted.process.pid, SIGTERM) == 0)
            #expect(await restarted.exitStatus(within: .seconds(10)) == .exited(0))
            let saved = try StateFile(path: RunFolder.hubState(in: device.directory)).load()
            #expect(saved?.model.session.state == .checkedIn)
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func aStateFileItCannotTrustStopsTheHubWithTheReason() async throws {
        try await DetachedDevice.with { device in
            let state = RunFolder.hubState(in: device.directory)
            try await Self.kill9(try #require(device.hubPID))
            try Data("{\"format\": \"someone-else\"}".utf8).write(to: URL(fileURLWithPath: state))
            let refused = try await run(sdlabPath, ["hub", "--bus", device.address, "--state", state])
            #expect(refused.status == 3)
            #expect(
                refused.stderr.contains("refusing the hub state file \(state): it is not a hub state file"),
                "\(refused.stderr)")
            #expect(try String(contentsOfFile: state, encoding: .utf8) == "{\"format\": \"someone-else\"}")
        }
    }

    /// The broker's first post reaches a subscriber with the notify state already set (how
    /// quickly is `sdlab bench`'s to say, not a test's).
    @Test(.timeLimit(.minutes(3)))
    func theFirstPostReachesASubscriberWithTheStateSet() async throws {
        try await DetachedDevice.with { device in
            try await withBus(device.address) { bus in
                try await bus.checkOut("cou1")
                let posts = try await bus.signals(matching: DeviceBus.posts(of: Self.changed))
                async let checkIn: Void = { _ = try await bus.hub(Self.hub1, "CheckIn") }()
                let post = try await next(posts, within: .seconds(10))
                try await checkIn
                #expect(post.body == [.string(Self.changed)] && post.path == DeviceBus.notifyPath)
                let state = try await bus.hub(NotifyMethod.interface, "GetState", [.string(Self.changed)])
                #expect(state == [.uint64(2)])
            }
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func removeAccountEndsTheSessionWithoutAPost() async throws {
        try await DetachedDevice.with { device in
            try await withBus(device.address) { bus in
                try await bus.checkOut("cou1")
                let posts = try await bus.signals(matching: DeviceBus.posts(of: Self.changed))
                try await bus.hub(BrokerMethod.interface, "RemoveAccount")
                #expect(try await bus.session() == ("checked-in", "", 2))
                await #expect(throws: DeviceError.noCurrentAccount.dbusError) {
                    try await bus.hub(BrokerMethod.interface, "RemoveAccount")
                }
                // No announcement: the state was never set, and the first post that arrives is a
                // marker sent after the reply (a post of the hub's would have come before it).
                let state = try await bus.hub(NotifyMethod.interface, "GetState", [.string(Self.changed)])
                #expect(state == [.uint64(0)])
                try bus.post(Self.changed)
                #expect(try await next(posts).sender == bus.uniqueName)
            }
        }
    }
}

/// Docs/behaviour.md §1: no password in clear in anything the device writes.
@Suite(.tags(.device), .devicesWanted, .serialized) struct CredentialHygieneTests {
    @Test(.timeLimit(.minutes(3)))
    func noPasswordReachesAnyFileOfTheRunFolder() async throws {
        let secrets = ["Stage-Secret-51d3", "Worker-Secret-9a7e", "Wrong-Guess-0c44"]
        let directory = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-hygiene")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let setup = HubSetup(
            directory: ConsoleDirectory([
                (DirectoryUser(name: "stage", role: .staging), secrets[0]), (DirectoryUser(name: "ana"), secrets[1]),
            ]))
        let device = try await RunningDevice.start(in: directory, detached: true, setup: setup, sdlab: sdlabPath)
        defer { device.stop() }
        try await withBus(device.bus.address) { bus in
            try await bus.hub(HubMethod.interface, "Enroll", ["stage", .string(secrets[0])])
            await #expect(throws: DeviceError.badCredentials.dbusError) {
                try await bus.hub(HubMethod.interface, "CheckOut", ["ana", .string(secrets[2])])
            }
            try await bus.hub(BrokerMethod.interface, "SignIn", ["ana", .string(secrets[1]), "mail"])
            try await bus.hub(HubMethod.interface, "Lock")
            let app = try await LaunchedApp.launch(
                AppSpec(name: "mail", sdk: .msal), bus: device.bus.address, in: directory, connection: bus,
                sdlab: sdlabPath)
            defer { app.crash() }
            let mail = AppClient(bus, app: app)
            await #expect(throws: DBusError.self) { try await mail.unlock("ana", password: secrets[2]) }
            try await mail.unlock("ana", password: secrets[1])
            try await mail.signOut()
        }
        let files = (FileManager.default.enumerator(atPath: directory)?.allObjects as? [String] ?? []).filter { file in
            var isFolder: ObjCBool = false
            return file != "bus"
                && FileManager.default.fileExists(atPath: directory + "/" + file, isDirectory: &isFolder)
                && !isFolder.boolValue
        }
        for expected in [
            "hub-state.json", "hub-setup.json", "trace/hub.jsonl", "trace/app-mail.jsonl", "logs/app-mail.log",
        ] {
            #expect(files.contains(expected), "\(files)")
        }
        for file in files {
            let content = try String(
                decoding: Data(contentsOf: URL(fileURLWithPath: directory + "/" + file)), as: UTF8.self)
            for secret in secrets { #expect(!content.contains(secret), "\(secret) in \(file)") }
        }
    }
}
