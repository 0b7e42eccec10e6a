import CFenceEscapes
import DeviceHost
import Foundation
import MSAL
import UIKit

/// A hostile app: it checks the account as MSAL apps do and keeps each record in its
/// container, as a correct app does, and also tries to keep it outside by each route
/// `SDLAB_ESCAPE_ROUTES` names (all by default), into the folder `SDLAB_ESCAPE_TO`. Every route
/// must be refused, and the run must name those the C library carries.
final class EscapingApp: UIResponder, UIApplicationDelegate, DeviceLabApp {
    let environment = ProcessInfo.processInfo.environment
    var msalApplication: MSALPublicClientApplication?
    var shown: [String] = []

    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        msalApplication = try? MSALPublicClientApplication(clientId: "fence-escapes")
        checkAccount()
        return true
    }

    func applicationWillEnterForeground(_ application: UIApplication) { checkAccount() }

    func checkAccount() {
        let parameters = MSALParameters()
        parameters.completionBlockQueue = DispatchQueue.main
        msalApplication?.getCurrentAccount(with: parameters) { _, _, _ in }
    }

    func store(_ records: [DeviceRecord]) throws {
        let outside = environment["SDLAB_ESCAPE_TO"] ?? "/tmp"
        let token = environment["SDLAB_ESCAPE_TOKEN"] ?? "sdlab-escape"
        let routes = (environment["SDLAB_ESCAPE_ROUTES"] ?? String(cString: fence_escape_routes))
            .split(separator: ",").map(String.init)
        let home = NSHomeDirectory()
        for record in records {
            for route in routes where fence_escape(route, outside, home, token, record.text) == 1 {
                print("the fence let \(route) through")
            }
            let file = home + "/Documents/" + record.canary.replacingOccurrences(of: "/", with: "-")
            try Data(record.text.utf8).write(to: URL(fileURLWithPath: file))
            shown.append(record.text)
        }
    }

    func displayedRecords() -> [String] { shown }
}

EscapingApp.main()
