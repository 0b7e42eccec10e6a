import Foundation

/// The `UIApplication` notifications the host posts on `NotificationCenter.default`, under
/// their iOS names, so that SDKs which follow the app's lifecycle by themselves (Workspace ONE)
/// and the app's own observers hear them as on a phone.
public enum AppLifecycleNames {
    public static let didFinishLaunching = Notification.Name("UIApplicationDidFinishLaunchingNotification")
    public static let willEnterForeground = Notification.Name("UIApplicationWillEnterForegroundNotification")
    public static let didBecomeActive = Notification.Name("UIApplicationDidBecomeActiveNotification")
    public static let willResignActive = Notification.Name("UIApplicationWillResignActiveNotification")
    public static let didEnterBackground = Notification.Name("UIApplicationDidEnterBackgroundNotification")
    public static let willTerminate = Notification.Name("UIApplicationWillTerminateNotification")
}
