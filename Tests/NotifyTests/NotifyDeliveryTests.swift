import DBusKit
import DarwinNotify
import DeviceContract
import DeviceTestKit
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

/// notify(3)'s deliveries between processes, after Libnotify's documented behaviours: each
/// test plays two processes with two clients on two connections of one device.
@Suite("notify(3) deliveries", .tags(.device), .devicesWanted)
struct NotifyDeliveryTests {
    @Test func firstCheckIsTrueThenTrueOnlyAfterAPost() async throws {
        try await InProcessDevice.with(prefix: "sdlab-notify") { device in
            let (app, poster) = (try await device.process(), try await device.process())
            let name = uniqueName("check")
            let token = try await app.blocking { try $0.registerCheck(name) }
            #expect(try app.client.check(token))
            #expect(try !app.client.check(token))
            let probe = try await app.deliveries(of: name, on: DispatchQueue(label: "probe"))
            try poster.client.post(name)
            try await probe.stream.next()
            #expect(try app.client.check(token))
            #expect(try !app.client.check(token))
        }
    }

    /// notify(3): check is true when an application posts a name and then checks it, at once;
    /// the post, coming back from the bus, is delivered but not counted again.
    @Test func aProcessSeesItsOwnPostAtItsNextCheck() async throws {
        try await InProcessDevice.with(prefix: "sdlab-notify") { device in
            let app = try await device.process()
            let name = uniqueName("own-check")
            let token = try await app.blocking { try $0.registerCheck(name) }
            #expect(try app.client.check(token), "the first check")
            let probe = try await app.deliveries(of: name, on: DispatchQueue(label: "probe"))
            try app.client.post(name)
            #expect(try app.client.check(token), "its own post, at once")
            try await probe.stream.next()
            #expect(try !app.client.check(token), "back from the bus, it is not counted again")
        }
    }

    @Test func aProcessHearsItsOwnPosts() async throws {
        try await InProcessDevice.with(prefix: "sdlab-notify") { device in
            let app = try await device.process()
            let name = uniqueName("own")
            let queue = DispatchQueue(label: "own")
            let tokens = Counter()
            let (stream, continuation) = AsyncStream<Int32>.makeStream()
            let token = try await app.blocking { client in
                try client.registerDispatch(name, queue: queue) { token in
                    tokens.add(token)
                    continuation.yield(token)
                }
            }
            try app.client.post(name)
            #expect(try await next(stream) == token)
            await drain(queue)
            #expect(tokens.all == [token: 1])
            #expect(app.listener.heard.load(ordering: .sequentiallyConsistent) == 1)
            #expect(app.listener.returned.load(ordering: .sequentiallyConsistent) == 1)
        }
    }

    /// A post that comes while a delivery waits to run joins it; one that comes later gets its own.
    @Test func postsWaitingBehindOneDeliveryJoinIt() async throws {
        try await InProcessDevice.with(prefix: "sdlab-notify") { device in
            let (app, poster) = (try await device.process(), try await device.process())
            let (name, fenceName) = (uniqueName("joined"), uniqueName("fence"))
            let queue = HeldQueue(label: "joined")
            let runs = Counter()
            let token = try await app.blocking { client in
                try client.registerDispatch(name, queue: queue.queue) { runs.add($0) }
            }
            let fence = try await app.deliveries(of: fenceName, on: DispatchQueue(label: "fence"))
            for _ in 0..<20 { try poster.client.post(name) }
            try poster.client.post(fenceName)
            try await fence.stream.next()
            queue.release()
            await drain(queue.queue)
            #expect(runs.count(token) == 1)
            try poster.client.post(name)
            try poster.client.post(fenceName)
            try await fence.stream.next()
            await drain(queue.queue)
            #expect(runs.count(token) == 2)
        }
    }

    /// However posts coalesce, a delivery runs after the last one has arrived.
    @Test func coalescedPostsNeverLoseTheLast() async throws {
        try await InProcessDevice.with(prefix: "sdlab-notify") { device in
            let (app, poster) = (try await device.process(), try await device.process())
            let name = uniqueName("burst")
            let queue = DispatchQueue(label: "burst")
            let runs = Counter()
            let listener = app.listener
            let (seen, continuation) = AsyncStream<Int>.makeStream()
            _ = try await app.blocking { client in
                try client.registerDispatch(name, queue: queue) { token in
                    runs.add(token)
                    continuation.yield(listener.heard.load(ordering: .sequentiallyConsistent))
                }
            }
            let total = 200
            for _ in 0..<total { try poster.client.post(name) }
            try await withTimeout(.seconds(20), "a delivery after the last post") {
                for await heard in seen where heard == total { return }
                throw StreamEnded()
            }
            await drain(queue)
            #expect((1...total).contains(runs.all.values.reduce(0, +)))
        }
    }

    @Test func eachOfManyTokensOfANameGetsOneDeliveryOfOnePost() async throws {
        try await InProcessDevice.with(prefix: "sdlab-notify") { device in
            let (app, poster) = (try await device.process(), try await device.process())
            let name = uniqueName("many")
            let queue = DispatchQueue(label: "many")
            let runs = Counter()
            let (stream, continuation) = AsyncStream<Int32>.makeStream()
            let tokens = try await app.blocking { client in
                try (0..<500).map { _ in
                    try client.registerDispatch(name, queue: queue) { token in
                        runs.add(token)
                        continuation.yield(token)
                    }
                }
            }
            #expect(tokens == tokens.sorted() && Set(tokens).count == 500 && tokens.allSatisfy { $0 >= 0 })
            try poster.client.post(name)
            try await withTimeout(.seconds(20), "500 deliveries") {
                var count = 0
                for await _ in stream {
                    count += 1
                    if count == 500 { return }
                }
                throw StreamEnded()
            }
            await drain(queue)
            #expect(tokens.allSatisfy { runs.count($0) == 1 })
            // One subscription serves them all: the process heard the post once.
            #expect(app.listener.heard.load(ordering: .sequentiallyConsistent) == 1)
        }
    }

    @Test func suspensionNestsAndHeldPostsMakeOneDeliveryAtTheLastResume() async throws {
        try await InProcessDevice.with(prefix: "sdlab-notify") { device in
            let (app, poster) = (try await device.process(), try await device.process())
            let (name, fenceName) = (uniqueName("suspended"), uniqueName("fence"))
            let queue = DispatchQueue(label: "suspended")
            let runs = Counter()
            let token = try await app.blocking { client in
                try client.registerDispatch(name, queue: queue) { runs.add($0) }
            }
            let fence = try await app.deliveries(of: fenceName, on: DispatchQueue(label: "fence"))
            try app.client.suspend(token)
            try app.client.suspend(token)
            try poster.client.post(name)
            try poster.client.post(name)
            try poster.client.post(fenceName)
            try await fence.stream.next()
            await drain(queue)
            #expect(runs.count(token) == 0)
            try app.client.resume(token)
            await drain(queue)
            #expect(runs.count(token) == 0)
            try app.client.resume(token)
            await drain(queue)
            #expect(runs.count(token) == 1)
        }
    }

    @Test func aHandlerMayCancelItsOwnToken() async throws {
        try await InProcessDevice.with(prefix: "sdlab-notify") { device in
            let (app, poster) = (try await device.process(), try await device.process())
            let name = uniqueName("cancel-inside")
            let queue = DispatchQueue(label: "cancel-inside")
            let runs = Counter()
            let cancelled = Counter()
            let token = try await app.blocking { client in
                try client.registerDispatch(name, queue: queue) { token in
                    runs.add(token)
                    if (try? client.cancel(token)) != nil { cancelled.add(token) }
                }
            }
            // Registered after it on the same queue: its deliveries run after the token's.
            let fence = try await app.deliveries(of: name, on: queue)
            try poster.client.post(name)
            try await fence.stream.next()
            #expect(runs.count(token) == 1 && cancelled.count(token) == 1)
            #expect(!app.client.isValid(token))
            try poster.client.post(name)
            try await fence.stream.next()
            await drain(queue)
            #expect(runs.count(token) == 1)
        }
    }

    @Test func aCancelledTokenGetsNoCallbackAlreadyQueued() async throws {
        try await InProcessDevice.with(prefix: "sdlab-notify") { device in
            let (app, poster) = (try await device.process(), try await device.process())
            let name = uniqueName("cancel-queued")
            let queue = HeldQueue(label: "cancel-queued")
            let runs = Counter()
            let token = try await app.blocking { client in
                try client.registerDispatch(name, queue: queue.queue) { runs.add($0) }
            }
            let fence = try await app.deliveries(of: name, on: DispatchQueue(label: "fence"))
            try poster.client.post(name)
            // The token's delivery was queued before the fence's, which has run.
            try await fence.stream.next()
            try app.client.cancel(token)
            queue.release()
            await drain(queue.queue)
            #expect(runs.count(token) == 0)
            #expect(throws: NotifyFailure.invalidToken) { try app.client.cancel(token) }
        }
    }

    @Test func stateIsSharedByTokensAndProcessesAndSettingItPostsNothing() async throws {
        try await InProcessDevice.with(prefix: "sdlab-notify") { device in
            let (app, other) = (try await device.process(), try await device.process())
            let (name, fenceName) = (uniqueName("state"), uniqueName("fence"))
            let queue = DispatchQueue(label: "state")
            let runs = Counter()
            let checked = try await app.blocking { try $0.registerCheck(name) }
            let dispatched = try await app.blocking { client in
                try client.registerDispatch(name, queue: queue) { runs.add($0) }
            }
            let elsewhere = try await other.blocking { try $0.registerCheck(name) }
            #expect(try await app.blocking { try $0.state(of: checked) } == 0)

            try await app.blocking { try $0.setState(42, of: checked) }
            #expect(try await app.blocking { try $0.state(of: dispatched) } == 42)
            #expect(try await other.blocking { try $0.state(of: elsewhere) } == 42)
            #expect(try await device.hubState(of: name) == 42)
            try await other.blocking { try $0.setState(7, of: elsewhere) }
            #expect(try await app.blocking { try $0.state(of: checked) } == 7)

            _ = try app.client.check(checked)
            let fence = try await app.deliveries(of: fenceName, on: queue)
            try await app.blocking { try $0.setState(8, of: checked) }
            try app.client.post(fenceName)
            try await fence.stream.next()
            #expect(try !app.client.check(checked))
            #expect(runs.count(dispatched) == 0)
        }
    }

    @Test func stateCallsFailWhenTheHubDoesNotAnswerInTime() async throws {
        try await InProcessDevice.with(prefix: "sdlab-notify") { device in
            // A hub that never answers: a connection whose thread is kept busy.
            let silent = try await device.connection()
            let nameFile = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).path
            try Data((silent.uniqueName + "\n").utf8).write(to: URL(fileURLWithPath: nameFile))
            defer { try? FileManager.default.removeItem(atPath: nameFile) }
            // Long enough for a registration on a loaded machine; the calls below wait it out.
            let app = try await device.process(timeout: .seconds(5), hub: HubAddress(nameFile: nameFile))
            let token = try await app.blocking { try $0.registerCheck(uniqueName("silent")) }
            let busy = DispatchSemaphore(value: 0)
            Task(executorPreference: silent) { busy.wait() }
            defer { busy.signal() }
            let started = ContinuousClock.now
            await #expect(throws: NotifyFailure.failed) { try await app.blocking { try $0.state(of: token) } }
            await #expect(throws: NotifyFailure.failed) { try await app.blocking { try $0.setState(1, of: token) } }
            #expect(ContinuousClock.now - started < .seconds(20))
        }
    }

    @Test func processLocalNamesStayInTheProcess() async throws {
        try await InProcessDevice.with(prefix: "sdlab-notify") { device in
            let (app, other) = (try await device.process(), try await device.process())
            let (name, fenceName) = ("self." + uniqueName("local"), uniqueName("fence"))
            let local = try await app.deliveries(of: name, on: DispatchQueue(label: "local"))
            let elsewhere = try await other.blocking { try $0.registerCheck(name) }
            _ = try other.client.check(elsewhere)
            let onTheBus = Counter()
            let watch = try await device.console.onSignal(matching: DeviceBus.posts(of: name)) { _ in onTheBus.add(0) }
            defer { watch.cancel() }
            let fence = try await device.console.signals(matching: DeviceBus.posts(of: fenceName))

            try app.client.post(name)
            try await local.stream.next()
            // The app's next post on the bus reaches the console after anything it sent before.
            try app.client.post(fenceName)
            _ = try await next(fence)
            #expect(onTheBus.all.isEmpty)
            #expect(try !other.client.check(elsewhere))

            try await app.blocking { try $0.setState(5, of: local.token) }
            #expect(try await app.blocking { try $0.state(of: local.token) } == 5)
            #expect(try await other.blocking { try $0.state(of: elsewhere) } == 0)
            // No process sends a `self.` name to the hub, which refuses one.
            await #expect(throws: DBusError.self) { try await device.hubState(of: name) }
        }
    }

    @Test func aBlockingCallOnTheConnectionThreadFailsAtOnce() async throws {
        try await InProcessDevice.with(prefix: "sdlab-notify") { device in
            let app = try await device.process(timeout: .seconds(30))
            let started = ContinuousClock.now
            let client = app.client
            let result = await withTaskExecutorPreference(app.connection) {
                Result { () throws(NotifyFailure) in try client.registerCheck(uniqueName("owner")) }
            }
            #expect(result == .failure(.failed))
            #expect(ContinuousClock.now - started < .seconds(10))
        }
    }
}

/// A serial queue held suspended until `release`, so deliveries wait on it; released at the
/// latest when it goes (libdispatch must not free a suspended queue).
final class HeldQueue: Sendable {
    let queue: DispatchQueue
    private let held = Mutex(true)

    init(label: String) {
        queue = DispatchQueue(label: label)
        queue.suspend()
    }

    func release() {
        let wasHeld = held.withLock { held in
            defer { held = false }
            return held
        }
        if wasHeld { queue.resume() }
    }

    deinit { release() }
}
