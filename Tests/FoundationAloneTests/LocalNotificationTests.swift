import Foundation
import Testing

/// A wrapper over CoreFoundation's notification centers, written as public wrappers are: the
/// local center carries the poster's object and user info to observers of that name and object,
/// before the post returns; the centers come back implicitly unwrapped, as iOS imports them.
final class CFNotificationRelay {
    private(set) var heard: [(name: String, object: UnsafeRawPointer?, userInfo: [String: Any]?)] = []

    private var observer: UnsafeRawPointer { UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque()) }

    func listen(to name: String?, from object: UnsafeRawPointer? = nil) {
        guard let center = CFNotificationCenterGetLocalCenter() else { return }
        CFNotificationCenterAddObserver(
            center, observer,
            { _, observer, name, object, userInfo in
                guard let observer = observer, let name = name else { return }
                let relay = Unmanaged<CFNotificationRelay>.fromOpaque(observer).takeUnretainedValue()
                relay.heard.append((name.rawValue as String, object, userInfo as? [String: Any]))
            }, name.map { $0 as CFString }, object, .deliverImmediately)
    }

    func stop(_ name: String) {
        CFNotificationCenterRemoveObserver(
            CFNotificationCenterGetLocalCenter(), observer, CFNotificationName(name as CFString), nil)
    }

    static func post(_ name: String, object: UnsafeRawPointer? = nil, userInfo: [String: Any]? = nil) {
        CFNotificationCenterPostNotification(
            CFNotificationCenterGetLocalCenter(), CFNotificationName(name as CFString), object,
            userInfo as CFDictionary?, true)
    }

    deinit {
        CFNotificationCenterRemoveEveryObserver(CFNotificationCenterGetLocalCenter(), observer)
    }
}

// One at a time: the local center is the process's, and an observer of every name hears what
// the suite's other tests post.
@Suite("CoreFoundation's local center and names, from Foundation alone", .serialized)
struct LocalNotificationTests {
    @Test func aLocalPostReachesItsObserversBeforeItReturns() {
        let relay = CFNotificationRelay()
        relay.listen(to: "com.contoso.shift.ended")
        CFNotificationRelay.post("com.contoso.shift.ended", userInfo: ["worker": "cou1"])
        CFNotificationRelay.post("com.contoso.shift.started")
        #expect(relay.heard.map(\.name) == ["com.contoso.shift.ended"])
        #expect(relay.heard.first?.userInfo?["worker"] as? String == "cou1")
        relay.stop("com.contoso.shift.ended")
        CFNotificationRelay.post("com.contoso.shift.ended")
        #expect(relay.heard.count == 1)
    }

    @Test func anObserverOfAnObjectHearsOnlyThatObjectsPosts() {
        let relay = CFNotificationRelay()
        let mine = UnsafeRawPointer(bitPattern: 0x1000)
        let theirs = UnsafeRawPointer(bitPattern: 0x2000)
        relay.listen(to: "com.contoso.sync", from: mine)
        CFNotificationRelay.post("com.contoso.sync", object: theirs)
        CFNotificationRelay.post("com.contoso.sync", object: mine)
        #expect(relay.heard.count == 1)
        #expect(relay.heard.first?.object == mine)
    }

    @Test func anObserverOfNoNameHearsEveryName() {
        let relay = CFNotificationRelay()
        relay.listen(to: nil)
        CFNotificationRelay.post("com.contoso.a")
        CFNotificationRelay.post("com.contoso.b")
        #expect(relay.heard.map(\.name) == ["com.contoso.a", "com.contoso.b"])
    }

    @Test func theLocalPostNeverCrossesToTheDarwinCenter() {
        #expect(CFNotificationCenterGetLocalCenter() != CFNotificationCenterGetDarwinNotifyCenter())
        if let center = CFNotificationCenterGetDarwinNotifyCenter() {
            #expect(center == CFNotificationCenterGetDarwinNotifyCenter())
        }
        // A Darwin post of the name a local observer listens for does not reach it.
        let relay = CFNotificationRelay()
        relay.listen(to: "com.contoso.darwin-only")
        CFNotificationCenterPostNotification(
            CFNotificationCenterGetDarwinNotifyCenter(), CFNotificationName("com.contoso.darwin-only" as CFString),
            nil, nil, true)
        #expect(relay.heard.isEmpty)
    }

    @Test func cfStringsReadAsSwiftStrings() {
        #expect(String(kSecAttrAccount) == "acct")
        #expect(String(kSecClassGenericPassword) == "genp")
        let info: [String: Any] = [kCFBundleIdentifierKey as String: "com.contoso.notes"]
        #expect(info[String(kCFBundleIdentifierKey)] as? String == "com.contoso.notes")
    }
}
