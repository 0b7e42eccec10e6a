import DarwinNotify
import DeviceProcesses
import DeviceTestKit
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CoreFoundationDarwin

/// The Darwin notify center over notify(3): callbacks on the main queue, observers removed,
/// posts between processes.
@Suite("Darwin notify center")
struct DarwinCenterTests {
    @Test func theDarwinCenterIsOneObject() {
        #expect(CFNotificationCenterGetDarwinNotifyCenter() === CFNotificationCenterGetDarwinNotifyCenter())
    }

    @Test(.tags(.device), .devicesWanted) func anObserverIsCalledOnTheMainQueueForAnotherProcessPost() async throws {
        DispatchQueue.main.setSpecific(key: mainQueueKey, value: true)
        try await InProcessDevice.with(prefix: "sdlab-notify") { device in
            let (app, other) = (try await device.process(), try await device.process())
            let (center, otherCenter) = (CFNotificationCenter { app.client }, CFNotificationCenter { other.client })
            let name = uniqueName("center")
            let watcher = AccountWatcher()
            await offPool { watcher.observe(name, on: center) }
            CFNotificationCenterPostNotification(
                otherCenter, CFNotificationName(name as CFString), nil, nil, true)
            let call = try await next(watcher.calls)
            #expect(call.onMainQueue)
            #expect(call.center === center)
            #expect(call.name == name)
            #expect(call.observer == UInt(bitPattern: Unmanaged.passUnretained(watcher).toOpaque()))
            #expect(!call.hadObjectOrUserInfo)
            await drain(.main)
            #expect(app.listener.returned.load(ordering: .sequentiallyConsistent) == 1)
        }
    }

    @Test(.tags(.device), .devicesWanted) func removedObserversAreNotCalled() async throws {
        try await InProcessDevice.with(prefix: "sdlab-notify") { device in
            let (app, other) = (try await device.process(), try await device.process())
            let (center, otherCenter) = (CFNotificationCenter { app.client }, CFNotificationCenter { other.client })
            let (first, second) = (uniqueName("first"), uniqueName("second"))
            // Registered first, so that a callback of theirs would run before the fence's.
            let (removed, fence) = (AccountWatcher(), AccountWatcher())
            await offPool {
                for name in [first, second] { removed.observe(name, on: center) }
                for name in [first, second] { fence.observe(name, on: center) }
            }
            CFNotificationCenterRemoveObserver(
                center, Unmanaged.passUnretained(removed).toOpaque(), CFNotificationName(first as CFString), nil)
            try await post(first, from: otherCenter, awaitedBy: fence)
            #expect(removed.count == 0)
            try await post(second, from: otherCenter, awaitedBy: fence)
            #expect(removed.count == 1)

            CFNotificationCenterRemoveEveryObserver(center, Unmanaged.passUnretained(removed).toOpaque())
            try await post(second, from: otherCenter, awaitedBy: fence)
            #expect(removed.count == 1)
            CFNotificationCenterRemoveObserver(center, Unmanaged.passUnretained(fence).toOpaque(), nil, nil)
            #expect((1...4).allSatisfy { !app.client.isValid($0) })
        }
    }

    @Test(.tags(.device), .devicesWanted) func anObserverAddedTwiceForANameIsCalledOnce() async throws {
        try await InProcessDevice.with(prefix: "sdlab-notify") { device in
            let app = try await device.process()
            let center = CFNotificationCenter { app.client }
            let name = uniqueName("twice")
            let (watcher, fence) = (AccountWatcher(), AccountWatcher())
            await offPool {
                watcher.observe(name, on: center)
                watcher.observe(name, on: center)
                fence.observe(name, on: center)
            }
            try await post(name, from: center, awaitedBy: fence)
            #expect(watcher.count == 1)
        }
    }

    @Test(.tags(.device), .devicesWanted) func aNilNameIsIgnored() async throws {
        try await InProcessDevice.with(prefix: "sdlab-notify") { device in
            let app = try await device.process()
            let center = CFNotificationCenter { app.client }
            let watcher = AccountWatcher()
            CFNotificationCenterAddObserver(center, nil, { _, _, _, _, _ in }, nil, nil, .deliverImmediately)
            CFNotificationCenterPostNotification(center, nil, nil, nil, true)
            CFNotificationCenterPostNotificationWithOptions(center, nil, nil, nil, kCFNotificationDeliverImmediately)
            #expect(!app.client.isValid(1))
            #expect(watcher.count == 0)
        }
    }
}

/// Marks the main queue, whichever thread serves it (under `swift test` it is not the main thread).
private let mainQueueKey = DispatchSpecificKey<Bool>()

/// Posts `name` and waits until `fence`'s callback for it ran and the main queue is drained.
private func post(_ name: String, from center: CFNotificationCenter, awaitedBy fence: AccountWatcher) async throws {
    CFNotificationCenterPostNotificationWithOptions(
        center, CFNotificationName(name as CFString), nil, nil, kCFNotificationDeliverImmediately)
    _ = try await next(fence.calls)
    await drain(.main)
}

/// An observer as a team writes one: registered with itself as the observer pointer, recovered
/// with `Unmanaged` in a callback that captures nothing.
private final class AccountWatcher: Sendable {
    struct Call: Sendable {
        let onMainQueue: Bool
        let center: CFNotificationCenter?
        let observer: UInt
        let name: String?
        let hadObjectOrUserInfo: Bool
    }

    let calls: AsyncStream<Call>
    private let continuation: AsyncStream<Call>.Continuation
    private let received = Mutex(0)

    init() { (calls, continuation) = AsyncStream<Call>.makeStream() }

    var count: Int { received.withLock { $0 } }

    func observe(_ name: String, on center: CFNotificationCenter) {
        CFNotificationCenterAddObserver(
            center, Unmanaged.passUnretained(self).toOpaque(),
            { center, observer, name, object, userInfo in
                guard let observer else { return }
                Unmanaged<AccountWatcher>.fromOpaque(observer).takeUnretainedValue()
                    .accountChanged(center, observer, name, hadExtras: object != nil || userInfo != nil)
            }, name as CFString, nil, .deliverImmediately)
    }

    func accountChanged(
        _ center: CFNotificationCenter?, _ observer: UnsafeMutableRawPointer, _ name: CFNotificationName?,
        hadExtras: Bool
    ) {
        received.withLock { $0 += 1 }
        continuation.yield(
            Call(
                onMainQueue: DispatchQueue.getSpecific(key: mainQueueKey) == true, center: center,
                observer: UInt(bitPattern: observer),
                name: name.map { $0.rawValue as String }, hadObjectOrUserInfo: hadExtras))
    }
}
