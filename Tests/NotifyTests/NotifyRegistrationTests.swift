import DBusKit
import DarwinNotify
import DeviceContract
import DeviceTestKit
import Dispatch
import Foundation
import SharedDevice
import TestSupport
import Testing

/// The names' lifetime, after Libnotify's server: a name and its state live only while some
/// process holds a registration for it; `self.` names stay in their process; every name of 1 to
/// 511 bytes works. Each test plays processes with clients on connections of one device.
@Suite("notify(3) names and registrations", .tags(.device), .devicesWanted)
struct NotifyRegistrationTests {
    /// `notifyutil -s foo.bar 123 -g foo.bar` prints 0: nobody holds foo.bar.
    @Test func aStateSetOnANameNobodyHoldsIsNotKept() async throws {
        try await InProcessDevice.with(prefix: "sdlab-notify") { device in
            let name = uniqueName("unheld")
            try await device.console.callHub(
                NotifyMethod.setState, [.string(name), .uint64(123)], timeout: .seconds(10))
            #expect(try await device.hubState(of: name) == 0)
        }
    }

    @Test func aStateLivesWhileSomeProcessHoldsItsName() async throws {
        try await InProcessDevice.with(prefix: "sdlab-notify") { device in
            let (app, other) = (try await device.process(), try await device.process())
            let name = uniqueName("held")
            let first = try await app.blocking { try $0.registerCheck(name) }
            let second = try await app.blocking { try $0.registerCheck(name) }
            try await app.blocking { try $0.setState(42, of: first) }
            #expect(try await device.hubState(of: name) == 42)
            let elsewhere = try await other.blocking { try $0.registerCheck(name) }

            try app.client.cancel(first)
            #expect(try await Self.state(of: name, askedBy: app) == 42, "the app still holds it")
            try app.client.cancel(second)
            #expect(try await Self.state(of: name, askedBy: app) == 42, "the other process holds it")
            try other.client.cancel(elsewhere)
            #expect(try await Self.state(of: name, askedBy: other) == 0, "its last registration went")

            let again = try await other.blocking { try $0.registerCheck(name) }
            #expect(try await other.blocking { try $0.state(of: again) } == 0, "held again, it starts from 0")
        }
    }

    /// A process killed cannot cancel: its registrations go when it leaves the bus.
    @Test func aProcessThatLeavesTheBusTakesItsRegistrationsWithIt() async throws {
        try await InProcessDevice.with(prefix: "sdlab-notify") { device in
            let (app, raw) = (try await device.process(), try await device.connection())
            let (name, rawName) = (uniqueName("left"), uniqueName("raw"))
            let token = try await app.blocking { try $0.registerCheck(name) }
            try await app.blocking { try $0.setState(7, of: token) }
            try await raw.callHub(NotifyMethod.register, [.string(rawName)], timeout: .seconds(10))
            try await raw.callHub(NotifyMethod.setState, [.string(rawName), .uint64(9)], timeout: .seconds(10))
            #expect(try await device.hubState(of: name) == 7)
            #expect(try await device.hubState(of: rawName) == 9)

            await app.connection.close()
            await raw.close()
            try await eventually("\(name)'s state is forgotten") { try await device.hubState(of: name) == 0 }
            try await eventually("\(rawName)'s state is forgotten") { try await device.hubState(of: rawName) == 0 }
            #expect(try await device.hubState(of: NotifyCenter.accountChanged) == 0, "the hub's own name answers")
        }
    }

    /// No process sends a `self.` name to the hub; one outside the rule is refused too.
    @Test(arguments: [NotifyMethod.getState, .setState, .register, .cancel])
    func theHubRefusesProcessLocalAndOverlongNames(method: NotifyMethod) async throws {
        try await InProcessDevice.with(prefix: "sdlab-notify") { device in
            func call(_ name: String) async throws {
                let arguments: [DBusValue] = method == .setState ? [.string(name), .uint64(1)] : [.string(name)]
                try await device.console.callHub(method, arguments, timeout: .seconds(10))
            }
            for (name, says) in [
                ("self.x", "self. names are private"), (String(repeating: "n", count: 512), NotifyCenter.nameRule),
                ("", NotifyCenter.nameRule),
            ] {
                let error = await #expect(throws: DBusError.self) { try await call(name) }
                #expect(error?.name == DBusError.prefix + "InvalidArgs")
                #expect(error?.message.contains(says) == true, "\(String(describing: error))")
            }
            try await call(String(repeating: "n", count: 511))
        }
    }

    /// A `Posted("self.x")` anyone may put on the bus (as gdbus can) reaches no process's
    /// `self.x` registration; the process's own post does.
    @Test func aSelfNameHearsOnlyItsOwnProcess() async throws {
        try await InProcessDevice.with(prefix: "sdlab-notify") { device in
            let (app, other) = (try await device.process(), try await device.process())
            let (name, fenceName) = ("self." + uniqueName("private"), uniqueName("fence"))
            let queue = DispatchQueue(label: "private")
            let runs = Counter()
            let local = try await app.blocking { client in
                try client.registerDispatch(name, queue: queue) { runs.add($0) }
            }
            let elsewhere = try await other.blocking { try $0.registerCheck(name) }
            _ = try other.client.check(elsewhere)
            let fence = try await app.deliveries(of: fenceName, on: queue)

            try device.console.post(name)
            // The console's next post reaches the app after anything the console sent before.
            try device.console.post(fenceName)
            try await fence.stream.next()
            await drain(queue)
            #expect(runs.count(local) == 0)
            #expect(try !other.client.check(elsewhere))
            try other.client.post(name)
            #expect(try other.client.check(elsewhere), "its own post")

            try app.client.post(name)
            await drain(queue)
            try await eventually("the process's own registration heard it") { runs.count(local) == 1 }
            #expect(try !other.client.check(elsewhere))
        }
    }

    @Test(arguments: [
        "com.contoso." + String(repeating: "n", count: 499), String(repeating: "'", count: 511),
        String(repeating: "é", count: 255) + "!",
    ])
    func everyNameOfUpTo511BytesIsPostedRegisteredAndHasAState(name: String) async throws {
        #expect(name.utf8.count == 511)
        try await InProcessDevice.with(prefix: "sdlab-notify") { device in
            let (app, other) = (try await device.process(), try await device.process())
            let (queue, runs) = (DispatchQueue(label: "long"), Counter())
            let heard = try await other.blocking { client in
                try client.registerDispatch(name, queue: queue) { runs.add($0) }
            }
            let token = try await app.blocking { try $0.registerCheck(name) }
            try await app.blocking { try $0.setState(5, of: token) }
            #expect(try await other.blocking { try $0.state(of: heard) } == 5)

            // Another name's post is not this one's, whichever rule the bus filtered with.
            let fenceName = uniqueName("fence")
            let fence = try await other.deliveries(of: fenceName, on: queue)
            try app.client.post(uniqueName("another"))
            try app.client.post(String(repeating: "'", count: 510))
            try app.client.post(fenceName)
            try await fence.stream.next()
            await drain(queue)
            #expect(runs.count(heard) == 0)
            try app.client.post(name)
            try await eventually("the post was heard") { runs.count(heard) == 1 }

            let tooLong = name + "x"
            #expect(throws: NotifyFailure.invalidName) { try app.client.post(tooLong) }
            await #expect(throws: NotifyFailure.invalidName) {
                try await app.blocking { try $0.registerCheck(tooLong) }
            }
        }
    }

    /// The state as the process sees it right after what its client sent before: the hub
    /// answers a connection's calls in order, and the client's calls go out in the order of the
    /// tasks that make them on its connection (as the client's own state calls do).
    private static func state(of name: String, askedBy process: DeviceProcess) async throws -> UInt64? {
        let connection = process.connection
        return try await Task(executorPreference: connection) {
            try await connection.callHub(NotifyMethod.getState, [.string(name)], timeout: .seconds(10)).first?.uint64
        }.value
    }
}
