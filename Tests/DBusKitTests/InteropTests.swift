import DBusKit
import DeviceProcesses
import TestSupport
import Testing

/// Foreign implementations of D-Bus (libdbus's tools, GLib's gdbus) talk to our objects and
/// signals: what we write is what the specification says, not just what we read back.
@Suite(.tags(.device), .devicesWanted) struct InteropTests {
    static let interface = DBusInterface(
        testInterface,
        methods: [
            .init("Shout", in: [.init("text", "s")], out: [.init("loud", "s")]) { call in
                [.string(call.arguments[0].string!.uppercased())]
            },
            .init(
                "Describe", in: [.init("options", "a{sv}"), .init("record", "(s(ix)as)")], out: [.init("summary", "s")]
            ) { call in
                guard let options = call.arguments[0].stringKeyed, case .variant(.uint32(let level)) = options["level"],
                    case .variant(.string(let name)) = options["name"], let record = call.arguments[1].fields,
                    let title = record[0].string, let pair = record[1].fields, let a = pair[0].int32,
                    let b = pair[1].int64,
                    let list = record[2].items?.compactMap(\.string)
                else {
                    throw DBusError.invalidArgs("unexpected values \(call.arguments)")
                }
                return [.string("level \(level), name \(name), \(title) \(a) \(b) \(list.joined(separator: "+"))")]
            },
        ],
        signals: [
            .init("Posted", [.init("what", "s")])
        ])

    /// Runs `body` with our object exported under `testName`.
    func withService(_ body: (_ daemon: BusDaemon, _ directory: String, _ service: Connection) async throws -> Void)
        async throws
    {
        try await BusDaemon.withTemporary { daemon, directory in
            let service = try await Connection.connect(to: daemon.address)
            do {
                try service.export([Self.interface], at: testPath)
                #expect(try await service.requestName(testName) == .primaryOwner)
                try await body(daemon, directory, service)
            } catch {
                await service.close()
                throw error
            }
            await service.close()
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func dbusSendCallsOurMethod() async throws {
        try await withService { daemon, _, _ in
            let result = try await run(
                "dbus-send",
                [
                    "--bus=\(daemon.address)", "--print-reply", "--dest=\(testName)",
                    testPath.rawValue, "\(testInterface).Shout", "string:hello",
                ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("method return"))
            #expect(result.stdout.contains("string \"HELLO\""), "\(result.stdout)")
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func dbusSendGetsOurErrors() async throws {
        try await withService { daemon, _, _ in
            let result = try await run(
                "dbus-send",
                [
                    "--bus=\(daemon.address)", "--print-reply", "--dest=\(testName)",
                    testPath.rawValue, "\(testInterface).Shout", "int32:1",
                ])
            #expect(result.status != 0)
            #expect(result.stderr.contains("org.freedesktop.DBus.Error.InvalidArgs"), "\(result.stderr)")
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func gdbusCallsOurMethods() async throws {
        try await withService { daemon, _, _ in
            let common = ["call", "--address", daemon.address, "--dest", testName, "--object-path", testPath.rawValue]
            let shout = try await run("gdbus", common + ["--method", "\(testInterface).Shout", "hello"])
            #expect(shout.status == 0, "\(shout.stderr)")
            #expect(shout.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "('HELLO',)")

            // Containers built by GLib from our introspection data.
            let describe = try await run(
                "gdbus",
                common + [
                    "--method", "\(testInterface).Describe",
                    "{'level': <uint32 3>, 'name': <'x'>}", "('top', (-1, 5), ['p', 'q'])",
                ])
            #expect(describe.status == 0, "\(describe.stderr)")
            #expect(
                describe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                    == "('level 3, name x, top -1 5 p+q',)", "\(describe.stdout)")
        }
    }

    /// dbus-monitor sees a signal we emit. It is ready once it shows its own NameLost, which
    /// the bus sends when it becomes a monitor.
    @Test(.timeLimit(.minutes(3)))
    func dbusMonitorSeesOurSignal() async throws {
        try await withService { daemon, directory, service in
            let monitor = try LineProducer(
                "dbus-monitor",
                [
                    "--address", daemon.address,
                    "type='signal',interface='\(testInterface)'",
                ],
                log: directory + "/dbus-monitor.log")
            defer { monitor.stop() }
            _ = try await monitor.waitForLine(containing: "member=NameLost")
            try service.emit("Posted", of: Self.interface, from: testPath, ["seen by the monitor"])
            let header = try await monitor.waitForLine(containing: "member=Posted")
            #expect(header.contains("interface=\(testInterface)"))
            #expect(header.contains("path=\(testPath)"))
            #expect(header.contains("sender=\(service.uniqueName)"))
            let argument = try await monitor.waitForLine(containing: "string")
            #expect(argument.contains("\"seen by the monitor\""))
        }
    }

    /// `gdbus emit --address` registers with the bus (Hello) only when given a destination;
    /// without one the daemon drops its signal. So the signal is addressed to us, and our
    /// subscription's own filter keeps Y out.
    @Test(.timeLimit(.minutes(3)))
    func gdbusEmitReachesOurSubscription() async throws {
        try await withService { daemon, _, service in
            let posted = try await service.signals(
                matching: MatchRule(
                    interface: testInterface, member: "Posted",
                    arguments: [0: "X"]))
            for what in ["Y", "X"] {
                let result = try await run(
                    "gdbus",
                    [
                        "emit", "--address", daemon.address, "--dest", service.uniqueName,
                        "--object-path", "/x", "--signal", "\(testInterface).Posted", "'\(what)'",
                    ])
                #expect(result.status == 0, "\(result.stderr)")
            }
            let message = try await next(posted)
            #expect(message.body == ["X"])
            #expect(message.path == "/x")
            #expect(message.destination == service.uniqueName)
            #expect(message.sender?.hasPrefix(":") == true)
            #expect(message.sender != service.uniqueName)
        }
    }

    /// A broadcast signal from dbus-send, filtered by the bus on arg0.
    @Test(.timeLimit(.minutes(3)))
    func dbusSendSignalReachesOurSubscription() async throws {
        try await withService { daemon, _, service in
            let posted = try await service.signals(
                matching: MatchRule(
                    interface: testInterface, member: "Posted",
                    arguments: [0: "X"]))
            for what in ["Y", "X"] {
                let result = try await run(
                    "dbus-send",
                    [
                        "--bus=\(daemon.address)", "--type=signal", "/x",
                        "\(testInterface).Posted", "string:\(what)",
                    ])
                #expect(result.status == 0, "\(result.stderr)")
            }
            let message = try await next(posted)
            #expect(message.body == ["X"])
            #expect(message.destination == nil)
        }
    }
}
