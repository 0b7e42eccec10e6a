import MSAL
import SwiftUI

/// A notes app for frontline workers on a shared phone, written as an iOS team writes a new
/// app: SwiftUI's lifecycle, with an app delegate for what runs at launch. Each time the scene
/// becomes active the app asks MSAL who is signed in, and the broker's account-change
/// notification does the same at once; a changed account means the previous worker's data goes
/// (AccountModel.swift).
@main
struct NotesApp: App {
    @UIApplicationDelegateAdaptor(AppDelegate.self) var appDelegate
    @Environment(\.scenePhase) private var scenePhase

    var body: some Scene {
        WindowGroup {
            NotesView()
                .environmentObject(appDelegate.account)
                .onOpenURL { url in
                    MSALPublicClientApplication.handleMSALResponse(url, sourceApplication: nil)
                }
        }
        .onChange(of: scenePhase) { newPhase in
            if newPhase == .active {
                appDelegate.account.refresh()
            }
        }
    }
}

/// Starts MSAL and the broker's notification as the app launches.
class AppDelegate: NSObject, UIApplicationDelegate {
    let account = AccountModel()

    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]? = nil
    ) -> Bool {
        account.start()
        return true
    }
}
