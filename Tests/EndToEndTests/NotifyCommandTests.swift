import DeviceProcesses
import Foundation
import TestSupport
import Testing

/// A name's lifetime, `self.` names and the name rule, with real processes on a device started
/// by `sdlab device up`: `sdlab notify` is notifyutil, and `notify wait` holds a registration
/// for as long as it waits (Docs/behaviour.md §3).
@Suite(.tags(.device), .devicesWanted, .serialized) struct NotifyCommandTests {
    /// `notifyutil -s foo.bar 123 -g foo.bar` prints 0; a state lives while another process
    /// holds the name, and goes with that process when it is killed.
    @Test(.timeLimit(.minutes(3)))
    func aStateLivesWhileAnotherProcessHoldsItsNameAndGoesWhenItIsKilled() async throws {
        try await DetachedDevice.with { device in
            try await expectSet("foo.bar", 123, thenGet: "0", on: device)

            let holder = try LineProducer(
                sdlabPath, ["notify", "wait", "foo.bar", "--timeout", "50s"],
                environment: device.environment, readingStderr: true)
            defer { holder.stop() }
            try await holder.waitForLine(containing: "waiting for foo.bar")
            try await expectSet("foo.bar", 123, thenGet: "123", on: device)

            holder.process.signal(SIGKILL)
            #expect(await holder.exitStatus(within: .seconds(10)) == .signaled(SIGKILL))
            try await eventually("forgotten with its holder") { try await get("foo.bar", on: device) == "0" }
            try await expectSet("foo.bar", 5, thenGet: "0", on: device)
            // The broker's name is the hub's own: its state stays whoever comes and goes.
            try await expectSet("SHARED_MODE_CURRENT_ACCOUNT_CHANGED", 9, thenGet: "9", on: device)
        }
    }

    /// A `self.` name is private to the process that uses it: another sdlab's post of it, or
    /// one put on the bus by anyone, never reaches a waiting sdlab, and its state stays home.
    @Test(.timeLimit(.minutes(3)))
    func aSelfNameNeverLeavesItsProcess() async throws {
        try await DetachedDevice.with { device in
            let waiter = try LineProducer(
                sdlabPath, ["notify", "wait", "self.x", "--timeout", "3s"],
                environment: device.environment, readingStderr: true)
            defer { waiter.stop() }
            try await waiter.waitForLine(containing: "waiting for self.x")
            let post = try await run(sdlabPath, ["notify", "post", "self.x"], environment: device.environment)
            #expect(post.status == 0)
            #expect(post.stderr.contains("self.x is private to this process"), "\(post.stderr)")
            let emit = try await run(
                "gdbus",
                [
                    "emit", "--session", "--object-path", "/dev/sdlab/Notify",
                    "--signal", "dev.sdlab.Notify1.Posted", "'self.x'",
                ], environment: device.environment)
            #expect(emit.status == 0, "\(emit.stderr)")
            #expect(await waiter.exitStatus(within: .seconds(10)) == .exited(1))

            try await expectSet("self.x", 5, thenGet: "0", on: device)
            let hub = try await run(
                "gdbus",
                [
                    "call", "--session", "--dest", "dev.sdlab.Hub", "--object-path", "/dev/sdlab/Hub",
                    "--method", "dev.sdlab.Notify1.SetState", "self.x", "5",
                ], environment: device.environment)
            #expect(hub.status != 0)
            #expect(hub.stderr.contains("InvalidArgs"), "\(hub.stderr)")
        }
    }

    @Test(.timeLimit(.minutes(3)), arguments: ["n", "'"])
    func namesOfUpTo511BytesWorkAnd512AreRefused(filler: String) async throws {
        let name = "com.contoso." + String(repeating: filler, count: 499)
        #expect(name.utf8.count == 511)
        try await DetachedDevice.with { device in
            let waiter = try LineProducer(
                sdlabPath, ["notify", "wait", name, "--timeout", "30s"],
                environment: device.environment, readingStderr: true)
            defer { waiter.stop() }
            try await waiter.waitForLine(containing: "waiting for com.contoso.")
            try await expectSet(name, 7, thenGet: "7", on: device)
            let post = try await run(sdlabPath, ["notify", "post", name], environment: device.environment)
            #expect(post.status == 0, "\(post.stderr)")
            #expect(await waiter.exitStatus(within: .seconds(10)) == .exited(0))

            let tooLong = name + filler
            for command in [["post", tooLong], ["wait", tooLong], ["get", tooLong], ["set", tooLong, "1"]] {
                let refused = try await run(sdlabPath, ["notify"] + command, environment: device.environment)
                #expect(refused.status == 2, "\(command[0])")
                #expect(
                    refused.stderr
                        == "sdlab: refused a name of 512 bytes: a notification name is 1 to 511 bytes without NUL\n",
                    "\(refused.stderr)")
            }
            let hub = try await run(
                "gdbus",
                [
                    "call", "--session", "--dest", "dev.sdlab.Hub", "--object-path", "/dev/sdlab/Hub",
                    "--method", "dev.sdlab.Notify1.GetState", String(repeating: "n", count: 512),
                ], environment: device.environment)
            #expect(hub.stderr.contains("InvalidArgs") && hub.stderr.contains("1 to 511 bytes"), "\(hub.stderr)")
        }
    }

    private func get(_ name: String, on device: DetachedDevice) async throws -> String {
        let get = try await run(sdlabPath, ["notify", "get", name], environment: device.environment)
        #expect(get.status == 0, "\(get.stderr)")
        return get.stdout.trimmingCharacters(in: .newlines)
    }

    private func expectSet(
        _ name: String, _ state: UInt64, thenGet expected: String, on device: DetachedDevice,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let set = try await run(sdlabPath, ["notify", "set", name, String(state)], environment: device.environment)
        #expect(set.status == 0, "\(set.stderr)", sourceLocation: sourceLocation)
        #expect(try await get(name, on: device) == expected, sourceLocation: sourceLocation)
    }
}
