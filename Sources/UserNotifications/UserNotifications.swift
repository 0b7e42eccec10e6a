@_exported import CoreFoundationDarwin
import Foundation

// The slice of UserNotifications an app delegate touches: asking for authorisation, a delegate,
// and local notifications. A device here has no notification centre that shows anything: every
// request is granted and kept, and nothing is ever shown or delivered to the delegate
// (Docs/your-app.md). What an app does with the answers is its own code, which runs as on iOS.

/// What an app asks to be allowed.
public struct UNAuthorizationOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let badge = UNAuthorizationOptions(rawValue: 1 << 0)
    public static let sound = UNAuthorizationOptions(rawValue: 1 << 1)
    public static let alert = UNAuthorizationOptions(rawValue: 1 << 2)
    public static let carPlay = UNAuthorizationOptions(rawValue: 1 << 3)
    public static let criticalAlert = UNAuthorizationOptions(rawValue: 1 << 4)
    public static let providesAppNotificationSettings = UNAuthorizationOptions(rawValue: 1 << 5)
    public static let provisional = UNAuthorizationOptions(rawValue: 1 << 6)
}

public enum UNAuthorizationStatus: Int, Sendable {
    case notDetermined, denied, authorized, provisional, ephemeral
}

/// How a notification that arrives in the foreground is shown.
public struct UNNotificationPresentationOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let badge = UNNotificationPresentationOptions(rawValue: 1 << 0)
    public static let sound = UNNotificationPresentationOptions(rawValue: 1 << 1)
    public static let alert = UNNotificationPresentationOptions(rawValue: 1 << 2)
    public static let list = UNNotificationPresentationOptions(rawValue: 1 << 3)
    public static let banner = UNNotificationPresentationOptions(rawValue: 1 << 4)
}

/// The app's notification settings: authorised once asked.
open class UNNotificationSettings: NSObject, @unchecked Sendable {
    open internal(set) var authorizationStatus: UNAuthorizationStatus

    init(authorizationStatus: UNAuthorizationStatus) { self.authorizationStatus = authorizationStatus }
}

/// What a local notification says.
open class UNNotificationContent: NSObject, @unchecked Sendable {
    open internal(set) var title = ""
    open internal(set) var subtitle = ""
    open internal(set) var body = ""
    open internal(set) var userInfo: [AnyHashable: Any] = [:]
}

open class UNMutableNotificationContent: UNNotificationContent, @unchecked Sendable {
    open override var title: String {
        get { super.title }
        set { super.title = newValue }
    }
    open override var subtitle: String {
        get { super.subtitle }
        set { super.subtitle = newValue }
    }
    open override var body: String {
        get { super.body }
        set { super.body = newValue }
    }
    open override var userInfo: [AnyHashable: Any] {
        get { super.userInfo }
        set { super.userInfo = newValue }
    }
    open var sound: UNNotificationSound?
    open var badge: NSNumber?
}

open class UNNotificationSound: NSObject, @unchecked Sendable {
    public static let `default` = UNNotificationSound()
}

open class UNNotificationTrigger: NSObject, @unchecked Sendable {
    public let repeats: Bool
    init(repeats: Bool) { self.repeats = repeats }
}

open class UNTimeIntervalNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
    public let timeInterval: TimeInterval
    public init(timeInterval: TimeInterval, repeats: Bool) {
        self.timeInterval = timeInterval
        super.init(repeats: repeats)
    }
}

open class UNNotificationRequest: NSObject, @unchecked Sendable {
    public let identifier: String
    public let content: UNNotificationContent
    public let trigger: UNNotificationTrigger?

    public init(identifier: String, content: UNNotificationContent, trigger: UNNotificationTrigger?) {
        self.identifier = identifier
        self.content = content
        self.trigger = trigger
    }
}

/// A notification as the delegate would get it; none is ever delivered here.
open class UNNotification: NSObject, @unchecked Sendable {
    public let request: UNNotificationRequest
    public let date: Date

    init(request: UNNotificationRequest, date: Date) {
        self.request = request
        self.date = date
    }
}

open class UNNotificationResponse: NSObject, @unchecked Sendable {
    public let notification: UNNotification
    public let actionIdentifier: String

    init(notification: UNNotification, actionIdentifier: String) {
        self.notification = notification
        self.actionIdentifier = actionIdentifier
    }
}

/// An app delegate's notification methods; every one is optional.
public protocol UNUserNotificationCenterDelegate: AnyObject {
    func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
        withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void)
    func userNotificationCenter(
        _ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
        withCompletionHandler completionHandler: @escaping () -> Void)
}

extension UNUserNotificationCenterDelegate {
    public func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
        withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void
    ) { completionHandler([]) }
    public func userNotificationCenter(
        _ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
        withCompletionHandler completionHandler: @escaping () -> Void
    ) { completionHandler() }
}

/// The app's notification centre: it grants what is asked and keeps the requests it is given.
open class UNUserNotificationCenter: NSObject, @unchecked Sendable {
    private static let shared = UNUserNotificationCenter()
    private let lock = NSLock()
    private var asked = false
    private var pending: [UNNotificationRequest] = []

    open weak var delegate: UNUserNotificationCenterDelegate?

    open class func current() -> UNUserNotificationCenter { shared }

    /// Granted, at once, on a background queue as on iOS.
    open func requestAuthorization(
        options: UNAuthorizationOptions = [], completionHandler: @escaping @Sendable (Bool, Error?) -> Void
    ) {
        lock.withLock { asked = true }
        DispatchQueue.global().async { completionHandler(true, nil) }
    }

    open func requestAuthorization(options: UNAuthorizationOptions = []) async throws -> Bool {
        lock.withLock { asked = true }
        return true
    }

    open func getNotificationSettings(completionHandler: @escaping @Sendable (UNNotificationSettings) -> Void) {
        let settings = currentSettings
        DispatchQueue.global().async { completionHandler(settings) }
    }

    open func notificationSettings() async -> UNNotificationSettings { currentSettings }

    private var currentSettings: UNNotificationSettings {
        UNNotificationSettings(authorizationStatus: lock.withLock { asked } ? .authorized : .notDetermined)
    }

    /// Kept, never shown.
    open func add(
        _ request: UNNotificationRequest, withCompletionHandler completionHandler: (@Sendable (Error?) -> Void)? = nil
    ) {
        keep(request)
        if let completionHandler { DispatchQueue.global().async { completionHandler(nil) } }
    }

    open func add(_ request: UNNotificationRequest) async throws { keep(request) }

    /// A request replaces the pending one of its identifier, as on iOS.
    private func keep(_ request: UNNotificationRequest) {
        lock.withLock {
            pending.removeAll { $0.identifier == request.identifier }
            pending.append(request)
        }
    }

    open func getPendingNotificationRequests(completionHandler: @escaping @Sendable ([UNNotificationRequest]) -> Void) {
        let requests = lock.withLock { pending }
        DispatchQueue.global().async { completionHandler(requests) }
    }

    open func pendingNotificationRequests() async -> [UNNotificationRequest] { lock.withLock { pending } }

    open func removePendingNotificationRequests(withIdentifiers identifiers: [String]) {
        lock.withLock { pending.removeAll { identifiers.contains($0.identifier) } }
    }

    open func removeAllPendingNotificationRequests() { lock.withLock { pending.removeAll() } }

    open func removeDeliveredNotifications(withIdentifiers identifiers: [String]) {}

    open func removeAllDeliveredNotifications() {}
}
