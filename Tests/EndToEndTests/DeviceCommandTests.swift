import DeviceLaunch
import DeviceProcesses
import Foundation
import TestSupport
import Testing

/// `sdlab device` and `sdlab notify` as a person (or a foreign tool) uses them.
@Suite(.tags(.device), .devicesWanted, .serialized) struct DeviceCommandTests {
    @Test(.timeLimit(.minutes(3)))
    func freshDeviceAnswersGetSessionAndIntrospects() async throws {
        try await DetachedDevice.with { device in
            let session = try await run(
                "gdbus",
                [
                    "call", "--address", device.address, "--dest", "dev.sdlab.Hub",
                    "--object-path", "/dev/sdlab/Hub", "--method", "dev.sdlab.Hub1.GetSession",
                ])
            #expect(session.status == 0, "\(session.stderr)")
            #expect(session.stdout.contains("('unenrolled', '', uint64 0)"), "\(session.stdout)")

            let introspection = try await run(
                "gdbus",
                [
                    "introspect", "--address", device.address, "--dest", "dev.sdlab.Hub",
                    "--object-path", "/dev/sdlab/Hub",
                ])
            #expect(introspection.status == 0, "\(introspection.stderr)")
            for expected in [
                "interface dev.sdlab.Hub1 {", "GetSession(out (sst) session);",
                "interface dev.sdlab.Notify1 {", "Posted(s name);", "readonly t Generation",
            ] {
                #expect(introspection.stdout.contains(expected), "\(expected) in \(introspection.stdout)")
            }
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func deviceDownLeavesNothingRunning() async throws {
        var pids: [Int32] = []
        try await DetachedDevice.with { device in
            pids = [device.hubPID, device.busPID].compactMap { $0 }
            #expect(pids.count == 2)
            #expect(pids.allSatisfy { !isGone($0) })
        }
        #expect(pids.allSatisfy(isGone), "still running: \(pids.filter { !isGone($0) })")
    }

    @Test(.timeLimit(.minutes(3)))
    func dbusMonitorSeesNotifyPost() async throws {
        try await DetachedDevice.with { device in
            let monitor = try LineProducer(
                "dbus-monitor",
                [
                    "--address", device.address,
                    "type='signal',interface='dev.sdlab.Notify1'",
                ])
            defer { monitor.stop() }
            try await monitor.waitForLine(containing: "member=NameLost")  // it is a monitor now
            let post = try await run(sdlabPath, ["notify", "post", "X"], environment: device.environment)
            #expect(post.status == 0, "\(post.stderr)")
            let header = try await monitor.waitForLine(containing: "member=Posted")
            #expect(header.contains("path=/dev/sdlab/Notify"))
            #expect(try await monitor.waitForLine(containing: "string").contains("\"X\""))
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func notifyWaitReturnsOnForeignPost() async throws {
        try await DetachedDevice.with { device in
            let waiter = try LineProducer(
                sdlabPath, ["notify", "wait", "X", "--timeout", "20s"],
                environment: device.environment, readingStderr: true)
            defer { waiter.stop() }
            try await waiter.waitForLine(containing: "waiting for X")
            let emit = try await run(
                "gdbus",
                [
                    "emit", "--session", "--object-path", "/dev/sdlab/Notify",
                    "--signal", "dev.sdlab.Notify1.Posted", "'X'",
                ], environment: device.environment)
            #expect(emit.status == 0, "\(emit.stderr)")
            #expect(await waiter.exitStatus(within: .seconds(10)) == .exited(0))
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func notifyWaitTimesOut() async throws {
        try await DetachedDevice.with { device in
            let started = ContinuousClock.now
            let wait = try await run(
                sdlabPath, ["notify", "wait", "NEVER", "--timeout", "300ms"], environment: device.environment)
            #expect(wait.status == 1)
            #expect(wait.stderr.contains("no post of NEVER"))
            #expect(ContinuousClock.now - started < .seconds(10))
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func notifyStateRoundTrip() async throws {
        try await DetachedDevice.with { device in
            let fresh = try await run(sdlabPath, ["notify", "get", "counter"], environment: device.environment)
            #expect(fresh.stdout == "0\n")
            // The hub keeps the state while a process holds the name: this one, while it waits.
            let holder = try LineProducer(
                sdlabPath, ["notify", "wait", "counter", "--timeout", "30s"],
                environment: device.environment, readingStderr: true)
            defer { holder.stop() }
            try await holder.waitForLine(containing: "waiting for counter")
            let set = try await run(
                sdlabPath, ["notify", "set", "counter", "18446744073709551615"], environment: device.environment)
            #expect(set.status == 0, "\(set.stderr)")
            let read = try await run(sdlabPath, ["notify", "get", "counter"], environment: device.environment)
            #expect(read.stdout == "18446744073709551615\n")
            let viaGdbus = try await run(
                "gdbus",
                [
                    "call", "--session", "--dest", "dev.sdlab.Hub", "--object-path", "/dev/sdlab/Hub",
                    "--method", "dev.sdlab.Notify1.GetState", "counter",
                ], environment: device.environment)
            #expect(viaGdbus.stdout.contains("uint64 18446744073709551615"), "\(viaGdbus.stdout)")
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func foregroundDeviceStopsOnInterrupt() async throws {
        let directory = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-e2e")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let up = try LineProducer(sdlabPath, ["device", "up", "--dir", directory])
        defer { up.stop() }
        try await up.waitForLine(containing: "SDLAB_DEVICE_DIR=")
        let pids = [RunFolder.hubPID(in: directory), RunFolder.busPID(in: directory)].compactMap(recordedPID)
        #expect(pids.count == 2)
        up.process.signal(SIGINT)
        #expect(await up.exitStatus(within: .seconds(20)) == .exited(0))
        #expect(pids.allSatisfy(isGone), "still running: \(pids.filter { !isGone($0) })")
    }
}

/// Exit codes of Docs/outputs.md for a device that cannot start and for bad usage.
@Suite struct DeviceFailureTests {
    /// A scenario's apps are not started by `device up`, and it says so rather than leave
    /// them out silently.
    @Test(.tags(.device), .devicesWanted, .timeLimit(.minutes(3)))
    func aScenariosAppsAreNotStartedAndItSaysSo() async throws {
        let directory = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-e2e")
        defer {
            _ = RunningDevice.stopRecorded(in: directory + "/run")
            try? FileManager.default.removeItem(atPath: directory)
        }
        let up = try await run(
            sdlabPath,
            [
                "device", "up", "--detach", "--dir", directory + "/run",
                "--scenario", RunCommandTests.library + "/side-by-side-check-in.yaml",
            ])
        #expect(up.status == 0, "\(up.stderr)")
        #expect(
            up.stderr.contains("the scenario's apps (mail, notes, inventory) are not started: `sdlab run` starts them"),
            "\(up.stderr)")
    }

    @Test(.timeLimit(.minutes(3)))
    func missingDaemonExits3() async throws {
        let up = try await run(
            sdlabPath, ["device", "up", "--detach"],
            environment: environment(with: ["SDLAB_DBUS_DAEMON": "/nonexistent/dbus-daemon"]))
        #expect(up.status == 3)
        #expect(up.stderr.contains("not found"), "\(up.stderr)")
    }

    @Test(.tags(.device), .devicesWanted, .timeLimit(.minutes(3)))
    func badConfigExits3WithTheDaemonsWords() async throws {
        let directory = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-e2e")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/broken.conf"
        try "<busconfig><listen>".write(toFile: config, atomically: true, encoding: .utf8)
        let up = try await run(
            sdlabPath, ["device", "up", "--detach", "--dir", directory + "/run"],
            environment: environment(with: ["SDLAB_BUS_CONFIG": config]))
        #expect(up.status == 3)
        #expect(up.stderr.contains("Failed to start message bus"), "\(up.stderr)")
        #expect(!FileManager.default.fileExists(atPath: RunFolder.busPID(in: directory + "/run")))
    }

    @Test(.timeLimit(.minutes(3)))
    func usageErrorsExit2() async throws {
        let bad = try await run(
            sdlabPath, ["notify", "set", "x", "not-a-number"],
            environment: environment(with: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"]))
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("not-a-number"))
        let noBus = try await run(
            sdlabPath, ["notify", "post", "X"], environment: environment(with: ["DBUS_SESSION_BUS_ADDRESS": ""]))
        #expect(noBus.status == 2)
    }

    @Test(.timeLimit(.minutes(3)))
    func unreachableBusExits3() async throws {
        let post = try await run(sdlabPath, ["notify", "post", "X", "--bus", "unix:path=/nonexistent/bus"])
        #expect(post.status == 3)
        #expect(post.stderr.contains("cannot reach the device bus"))
    }

    @Test(
        .timeLimit(.minutes(3)),
        arguments: [
            [], ["device"], ["device", "up"], ["device", "down"], ["notify"],
            ["notify", "post"], ["notify", "wait"], ["notify", "get"], ["notify", "set"], ["hub"],
        ])
    func everyCommandHasHelp(command: [String]) async throws {
        let help = try await run(sdlabPath, command + ["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: sdlab"), "\(help.stdout)")
    }
}
