import FacadeCore
import Foundation

/// What a team's app offers the device besides its own code: where the records of a scenario's
/// `write` step go, and, optionally, its own sign-in and sign-out and what it shows. This is the
/// one piece of a team's app that is new: an extension of its app delegate (or any object)
/// in a file of its own (Docs/your-app.md).
public protocol DeviceLabApp: AnyObject {
    /// Stores records the way the app stores its user's data (a file, the defaults, the
    /// keychain, a SQLite row). Called on the main queue; each record's text carries a canary
    /// of its user that the leak scan looks for in every byte the app leaves.
    func store(_ records: [DeviceRecord]) throws
    /// The app's own sign-in (its `acquireToken`): MSAL's sign-in page gets the scenario's
    /// user and password. Call `completion` once done, with the error if it failed.
    func signIn(completion: @escaping (Error?) -> Void)
    /// The app's own sign-out (its `signout`).
    func signOut(completion: @escaping (Error?) -> Void)
    /// The texts of the records the app shows now (the `exposed` expectation reads them).
    func displayedRecords() -> [String]
}

extension DeviceLabApp {
    public func signIn(completion: @escaping (Error?) -> Void) { completion(DeviceHostError.notOffered("sign-in")) }
    public func signOut(completion: @escaping (Error?) -> Void) { completion(DeviceHostError.notOffered("sign-out")) }
    public func displayedRecords() -> [String] { [] }
}

/// One record a scenario hands the app: its user's data, as the app would get it from its server.
public struct DeviceRecord: Sendable, Hashable {
    /// Whose record it is.
    public let user: String
    /// `sensitive`, `plain`, `preferences`, `common` or `external`: how the scenario asks the app
    /// to treat it; what the app's cleanup declares it keeps is judged by this.
    public let kind: String
    /// Unique on the device: `SDLAB-CANARY/USER/APP/KIND/N`.
    public let canary: String
    /// The record's content, which starts with its canary.
    public let text: String

    /// A record, as a test of the app's store may make one.
    public init(user: String, kind: String, canary: String, text: String) {
        self.user = user
        self.kind = kind
        self.canary = canary
        self.text = text
    }
}

/// The app lifecycle the host drives, on the main thread: what UIKit's application object
/// does for an app delegate (and its scene). The receiver calls the app's code and posts the
/// `UIApplication` notifications that follow it (`AppLifecycleNames`), with the object UIKit gives
/// them; an app without one gets the notifications alone (object nil: there is no application).
public protocol AppLifecycleReceiver: AnyObject {
    /// The app has launched and comes to the foreground (`application(_:didFinishLaunchingWithOptions:)`;
    /// a scene-based app's scene then connects and enters the foreground).
    func didFinishLaunching()
    /// The app is coming back from the background.
    func willEnterForeground()
    /// The app is in the foreground and active.
    func didBecomeActive()
    /// The app is about to leave the foreground.
    func willResignActive()
    /// The app is in the background: without a background task it is suspended after the
    /// device's grace (Docs/behaviour.md §7).
    func didEnterBackground()
    /// The app is being terminated while running; a suspended app is not told.
    func willTerminate()
}

/// The lifecycle of an app without an application object (`DeviceHost.main(app:)`): the
/// notifications alone, for the SDKs that follow them (Workspace ONE).
final class NotificationsOnly: AppLifecycleReceiver {
    func didFinishLaunching() { post(AppLifecycleNames.didFinishLaunching) }
    func willEnterForeground() { post(AppLifecycleNames.willEnterForeground) }
    func didBecomeActive() { post(AppLifecycleNames.didBecomeActive) }
    func willResignActive() { post(AppLifecycleNames.willResignActive) }
    func didEnterBackground() { post(AppLifecycleNames.didEnterBackground) }
    func willTerminate() { post(AppLifecycleNames.willTerminate) }

    private func post(_ name: Notification.Name) { NotificationCenter.default.post(name: name, object: nil) }
}

/// Why the host could not do what a scenario asked of the app.
public enum DeviceHostError: Error, CustomStringConvertible {
    /// The app's ``DeviceLabApp`` conformance does not implement this (`sign-in`, `sign-out`):
    /// the scenario's step fails as not supported.
    case notOffered(String)

    public var description: String {
        switch self {
        case .notOffered(let what): "the app offers no \(what) of its own (DeviceLabApp)"
        }
    }
}
