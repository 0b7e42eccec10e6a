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

    public init(user: String, kind: String, canary: String, text: String) {
        self.user = user
        self.kind = kind
        self.canary = canary
        self.text = text
    }
}

/// The app lifecycle the host drives, on the main thread: what UIKit's application object
/// does for an app delegate.
public protocol AppLifecycleReceiver: AnyObject {
    func didFinishLaunching()
    func willEnterForeground()
    func didBecomeActive()
    func willResignActive()
    func didEnterBackground()
    func willTerminate()
}

public enum DeviceHostError: Error, CustomStringConvertible {
    case notOffered(String)

    public var description: String {
        switch self {
        case .notOffered(let what): "the app offers no \(what) of its own (DeviceLabApp)"
        }
    }
}
