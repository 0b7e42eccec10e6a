import MSAL
import SwiftUI

/// A notes app for frontline workers written with SwiftUI's lifecycle, as new iOS apps are:
/// the scene phase drives the account check (each time the app becomes active), the broker's
/// account-change notification too, and a changed account means the previous worker's notes go.
/// `@main` is in the entry (Sources/Examples/Entries/ExampleSwiftUINotes), which picks the mistake.
public struct NotesApp: App {
    @UIApplicationDelegateAdaptor(AppDelegate.self) var appDelegate
    @Environment(\.scenePhase) private var scenePhase

    public init() {}

    public var body: some Scene {
        WindowGroup {
            NotesView()
                .environmentObject(appDelegate.account)
                .onOpenURL { url in
                    _ = MSALPublicClientApplication.handleMSALResponse(url, sourceApplication: nil)
                }
        }
        .onChange(of: scenePhase) { phase in
            if phase == .active { appDelegate.account.refresh() }
        }
    }
}

/// The app delegate the app gives SwiftUI: it starts MSAL and listens for the broker.
public final class AppDelegate: UIResponder, UIApplicationDelegate {
    let account = AccountModel()

    public func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]? = nil
    ) -> Bool {
        account.start()
        return true
    }
}
