import Foundation
import Testing

/// A Darwin-notification helper whose file imports Foundation alone. Outside a device the
/// Darwin center hears and sends nothing: the calls compile and run, and no callback comes.
@Suite("Darwin helper importing Foundation alone")
struct DarwinNotificationObserverTests {
    @Test func theCenterIsOneHashableObject() {
        let center = CFNotificationCenterGetDarwinNotifyCenter()
        #expect(center == CFNotificationCenterGetDarwinNotifyCenter())
        #expect(Set([center, CFNotificationCenterGetDarwinNotifyCenter()]).count == 1)
        let names: Set<CFNotificationName> = [
            CFNotificationName("com.contoso.a" as CFString), CFNotificationName(rawValue: "com.contoso.a" as CFString),
        ]
        #expect(names.count == 1)
    }

    @MainActor @Test func observingAndStoppingOutsideADeviceCallsNothing() async {
        let observer = DarwinNotificationObserver()
        var calls: [String] = []
        observer.observe("com.contoso.accountChanged") { calls.append($0) }
        observer.observe("com.contoso.signedOut") { calls.append($0) }
        #expect(observer.observedNames == ["com.contoso.accountChanged", "com.contoso.signedOut"])
        DarwinNotificationObserver.post("com.contoso.accountChanged")
        // Any callback would have been queued on the main queue by now: let it run first.
        await withCheckedContinuation { continuation in DispatchQueue.main.async { continuation.resume() } }
        #expect(calls.isEmpty)
        observer.stopObserving("com.contoso.accountChanged")
        #expect(observer.observedNames == ["com.contoso.signedOut"])
    }

    @Test func theSuspensionBehavioursAndOptionsExist() {
        let behaviours: [CFNotificationSuspensionBehavior] = [.drop, .coalesce, .hold, .deliverImmediately]
        #expect(behaviours.map(\.rawValue) == [1, 2, 3, 4])
        CFNotificationCenterPostNotificationWithOptions(
            CFNotificationCenterGetDarwinNotifyCenter(), CFNotificationName("com.contoso.x" as CFString), nil, nil,
            kCFNotificationDeliverImmediately | kCFNotificationPostToAllSessions)
    }
}
