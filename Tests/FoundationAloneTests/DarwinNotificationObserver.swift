import Foundation

/// A team's Darwin-notification helper, written as iOS helpers are: one object observes names
/// on the Darwin center, recovering itself from the observer pointer in a callback that
/// captures nothing, and stops observing when it goes away.
final class DarwinNotificationObserver {
    typealias Handler = (String) -> Void

    private let center = CFNotificationCenterGetDarwinNotifyCenter()
    private var handlers: [String: Handler] = [:]

    private var observer: UnsafeRawPointer {
        UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
    }

    /// Calls `handler` on the main queue after each post of `name`.
    func observe(_ name: String, handler: @escaping Handler) {
        handlers[name] = handler
        let callback: CFNotificationCallback = { _, observer, name, _, _ in
            guard let observer, let name else { return }
            let me = Unmanaged<DarwinNotificationObserver>.fromOpaque(observer).takeUnretainedValue()
            me.received(name.rawValue as String)
        }
        CFNotificationCenterAddObserver(center, observer, callback, name as CFString, nil, .deliverImmediately)
    }

    func stopObserving(_ name: String) {
        handlers[name] = nil
        CFNotificationCenterRemoveObserver(center, observer, CFNotificationName(name as CFString), nil)
    }

    var observedNames: Set<String> { Set(handlers.keys) }

    /// Posts `name` to every process of the device.
    static func post(_ name: String) {
        let name = CFNotificationName(rawValue: name as CFString)
        CFNotificationCenterPostNotification(CFNotificationCenterGetDarwinNotifyCenter(), name, nil, nil, true)
    }

    private func received(_ name: String) {
        handlers[name]?(name)
    }

    deinit {
        CFNotificationCenterRemoveEveryObserver(center, observer)
    }
}
