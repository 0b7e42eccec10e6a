import DeviceHost
import Foundation
import MSAL
import UIKit

/// An app without an app delegate, started from `main.swift` with `DeviceHost.main(app:)`: it
/// follows UIKit's notifications alone, asking MSAL for the account each time it becomes
/// active, and keeps its user's notes in Documents.
final class ShiftLog: DeviceLabApp {
    private var application: MSALPublicClientApplication?
    private var becameActive: NSObjectProtocol?
    private var notes: URL { FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)[0] }

    init() {
        becameActive = NotificationCenter.default.addObserver(
            forName: UIApplication.didBecomeActiveNotification, object: nil, queue: .main
        ) { [weak self] _ in self?.lookUpAccount() }
    }

    private func lookUpAccount() {
        if application == nil {
            application = try? MSALPublicClientApplication(
                configuration: MSALPublicClientApplicationConfig(clientId: "shift-log"))
        }
        application?.getCurrentAccount(with: nil) { _, _, _ in }
    }

    func store(_ records: [DeviceRecord]) throws {
        for record in records {
            let name = record.canary.replacingOccurrences(of: "/", with: "-")
            try Data(record.text.utf8).write(to: notes.appendingPathComponent(name))
        }
    }

    func displayedRecords() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: notes.path)) ?? []
        return names.compactMap { try? String(contentsOf: notes.appendingPathComponent($0), encoding: .utf8) }
    }
}

DeviceHost.main(app: ShiftLog())
