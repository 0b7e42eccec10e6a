/// The package `sdlab init` writes: a team's notes app on the facades, as Docs/your-app.md
/// describes it, one scenario that runs it, and a README with the two commands. Every file's
/// text is here, and nothing else is.
struct TeamTemplate {
    /// The package's name (the folder's).
    let name: String
    /// The SharedDeviceLab checkout the package depends on, absolute.
    let lab: String
    /// How the README runs the scenarios: an sdlab built from that checkout.
    let runCommand: String

    /// The app's executable target, which the scenario names.
    static let appTarget = "NotesApp"
    /// The scenario, in `Scenarios/`.
    static let scenarioFile = "Scenarios/notes-app-cleans-up-on-check-in.yaml"
    /// The line the README says to delete to see the scenario fail.
    static let breakingLine = "try? fileManager.removeItem(at: previewsFolder(of: user))"

    /// Each file's path in the package and its text, in the order they are listed.
    var files: [(path: String, text: String)] {
        [
            ("Package.swift", packageManifest),
            ("Sources/\(Self.appTarget)/AppDelegate.swift", appDelegate),
            ("Sources/\(Self.appTarget)/NotesStore.swift", notesStore),
            ("Sources/\(Self.appTarget)/DeviceLabApp.swift", deviceLabApp),
            (Self.scenarioFile, scenario),
            ("README.md", readme),
            (".gitignore", "/.build/\n/.swiftpm/\n"),
        ]
    }

    /// The dependency's identity, which `.product(package:)` names: a path dependency's is
    /// its folder's name.
    private var labIdentity: String { lab.split(separator: "/").last.map(String.init) ?? "SharedDeviceLab" }

    private var packageManifest: String {
        #"""
        // swift-tools-version:6.0
        import PackageDescription

        let package = Package(
            name: "\#(literal(name))",
            dependencies: [.package(path: "\#(literal(lab))")],  // SharedDeviceLab
            targets: [
                // The app: its files compile unchanged against SharedDeviceLab's MSAL, Security and
                // UIKit, as against the real ones on iOS; DeviceHost runs it in a device.
                .executableTarget(
                    name: "\#(Self.appTarget)",
                    dependencies: [
                        .product(name: "MSAL", package: "\#(literal(labIdentity))"),
                        .product(name: "Security", package: "\#(literal(labIdentity))"),
                        .product(name: "UIKit", package: "\#(literal(labIdentity))"),
                        .product(name: "DeviceHost", package: "\#(literal(labIdentity))"),
                    ],
                    swiftSettings: [.swiftLanguageMode(.v5)])
            ]
        )

        """#
    }

    private var appDelegate: String {
        #"""
        import Foundation
        import MSAL
        import UIKit

        /// A notes app for frontline workers on a shared phone, written as an iOS team writes it
        /// against MSAL in shared device mode: it listens for the broker's account-change
        /// notification, asks `getCurrentAccount` at launch, on every return to the foreground and
        /// on each notification, and when the account changed removes the previous worker's data.
        @main
        class AppDelegate: UIResponder, UIApplicationDelegate {
            var window: UIWindow?
            var msalApplication: MSALPublicClientApplication?
            let notes = NotesStore()

            func application(
                _ application: UIApplication,
                didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
            ) -> Bool {
                let configuration = MSALPublicClientApplicationConfig(
                    clientId: "00000000-0000-0000-0000-000000000000", redirectUri: "msauth.com.contoso.notes://auth",
                    authority: nil)
                msalApplication = try? MSALPublicClientApplication(configuration: configuration)
                // The broker posts this Darwin notification on every global sign-in and sign-out. It
                // carries nothing: the app asks MSAL what changed.
                CFNotificationCenterAddObserver(
                    CFNotificationCenterGetDarwinNotifyCenter(), Unmanaged.passUnretained(self).toOpaque(),
                    { _, observer, _, _, _ in
                        guard let observer = observer else { return }
                        Unmanaged<AppDelegate>.fromOpaque(observer).takeUnretainedValue().refreshAccount()
                    }, "SHARED_MODE_CURRENT_ACCOUNT_CHANGED" as CFString, nil, .deliverImmediately)
                refreshAccount()
                return true
            }

            func applicationWillEnterForeground(_ application: UIApplication) {
                refreshAccount()
            }

            /// Asks MSAL who is signed in; a changed account means the previous worker's data goes.
            func refreshAccount() {
                let parameters = MSALParameters()
                parameters.completionBlockQueue = DispatchQueue.main
                msalApplication?.getCurrentAccount(with: parameters) { [weak self] currentAccount, previousAccount, error in
                    guard let self = self else { return }
                    if let error = error {
                        NSLog("getCurrentAccount failed: \(error)")
                        return
                    }
                    if let previousAccount = previousAccount, previousAccount.identifier != currentAccount?.identifier {
                        self.notes.removeEverything(of: previousAccount.username ?? "")
                    }
                    self.notes.currentUser = currentAccount?.username
                }
            }
        }

        """#
    }

    private var notesStore: String {
        #"""
        import Foundation
        import Security

        /// Where the app keeps a worker's data: notes in Documents, a preview of each in Caches, the
        /// worker's preferences in the user defaults, and confidential notes in the keychain.
        final class NotesStore {
            var currentUser: String?
            private let fileManager = FileManager.default
            private static let keychainService = "com.contoso.notes.confidential"

            private var notesFolder: URL {
                fileManager.urls(for: .documentDirectory, in: .userDomainMask)[0].appendingPathComponent("notes")
            }

            private func previewsFolder(of user: String) -> URL {
                fileManager.urls(for: .cachesDirectory, in: .userDomainMask)[0]
                    .appendingPathComponent("previews").appendingPathComponent(user)
            }

            /// Saves a note: confidential ones in the keychain, preferences in the defaults, the rest
            /// in Documents with a preview in Caches.
            func save(_ text: String, kind: String, of user: String, id: String) throws {
                switch kind {
                case "sensitive":
                    let item: [String: Any] = [
                        kSecClass as String: kSecClassGenericPassword,
                        kSecAttrService as String: NotesStore.keychainService,
                        kSecAttrAccount as String: id,
                        kSecAttrLabel as String: user,
                        kSecValueData as String: Data(text.utf8),
                    ]
                    let status = SecItemAdd(item as CFDictionary, nil)
                    guard status == errSecSuccess else { throw NSError(domain: NSOSStatusErrorDomain, code: Int(status)) }
                case "preferences":
                    UserDefaults.standard.set(text, forKey: "prefs.\(user).\(id)")
                default:
                    let file = notesFolder.appendingPathComponent("\(user).txt")
                    try fileManager.createDirectory(at: notesFolder, withIntermediateDirectories: true)
                    let existing = (try? Data(contentsOf: file)) ?? Data()
                    try (existing + Data((text + "\n").utf8)).write(to: file, options: .atomic)
                    let previews = previewsFolder(of: user)
                    try fileManager.createDirectory(at: previews, withIntermediateDirectories: true)
                    let preview = previews.appendingPathComponent(id.replacingOccurrences(of: "/", with: "_"))
                    try Data(text.utf8).write(to: preview)
                }
            }

            /// The notes the app shows: the current worker's.
            func shownNotes() -> [String] {
                guard let user = currentUser,
                    let text = try? String(contentsOf: notesFolder.appendingPathComponent("\(user).txt"), encoding: .utf8)
                else { return [] }
                return text.split(separator: "\n").map(String.init)
            }

            /// Removes everything of a worker who is gone.
            func removeEverything(of user: String) {
                try? fileManager.removeItem(at: notesFolder.appendingPathComponent("\(user).txt"))
                // To see the scenario fail, delete the next line: the previews stay in Caches.
                \#(Self.breakingLine)
                for key in UserDefaults.standard.dictionaryRepresentation().keys where key.hasPrefix("prefs.\(user).") {
                    UserDefaults.standard.removeObject(forKey: key)
                }
                let query: [String: Any] = [
                    kSecClass as String: kSecClassGenericPassword,
                    kSecAttrService as String: NotesStore.keychainService,
                    kSecAttrLabel as String: user,
                ]
                SecItemDelete(query as CFDictionary)
            }
        }

        """#
    }

    private var deviceLabApp: String {
        #"""
        import DeviceHost

        // The one file added to run the app in a SharedDeviceLab device; the others are the app as
        // it ships. It says where a scenario's records go and what the app shows now.
        extension AppDelegate: DeviceLabApp {
            func store(_ records: [DeviceRecord]) throws {
                for record in records {
                    try notes.save(record.text, kind: record.kind, of: record.user, id: record.canary)
                }
            }

            func displayedRecords() -> [String] { notes.shownNotes() }
        }

        """#
    }

    private var scenario: String {
        #"""
        # Worker cou1 checks the phone out, writes notes of three kinds into the app, and checks it in.
        # The broker's post reaches the app at once (it has background mode), and its own code removes
        # cou1's notes (Documents), previews (Caches), preferences (defaults) and confidential notes
        # (keychain). The leak scan then reads every byte the app left, as an attacker holding the
        # phone would, and finds none of cou1's data.
        name: The notes app removes the previous worker's data on check-in
        apps:
          - {name: notes, sdk: msal, background: true, executable: ../.build/debug/\#(Self.appTarget), cleanup: own}
        steps:
          - enroll: stage
          - checkout: cou1
          - launch: notes
          - write: {app: notes, kind: plain, count: 3}
          - write: {app: notes, kind: sensitive, count: 2}
          - write: {app: notes, kind: preferences, count: 1}
          - expect:
              notes: {user: cou1, records: 3}
          - checkin
          - settle
          - expect:
              notes: {user: none, previous: cou1, leaks: 0, records: 0, mechanism: signal, within: 2s}

        """#
    }

    private var readme: String {
        #"""
        # \#(name)

        A shared-device app run in a SharedDeviceLab device, written by `sdlab init`.

        - `Sources/\#(Self.appTarget)/AppDelegate.swift` and `NotesStore.swift`: the app as an iOS team writes
          it, against MSAL in shared device mode, FileManager, UserDefaults and the keychain.
        - `Sources/\#(Self.appTarget)/DeviceLabApp.swift`: the one file added to run it in a device.
        - `\#(Self.scenarioFile)`: a worker writes notes and checks the phone in; the
          app must leave none of that worker's data.

        ## Run it

        ```sh
        swift build          # about a minute the first time: it compiles the modules the app links
        \#(runCommand) run Scenarios
        ```

        `sdlab run` exits 0 when every expectation held and 1 when one failed; `--report DIR`
        also writes an HTML report.

        ## See it fail

        In `Sources/\#(Self.appTarget)/NotesStore.swift`, delete the line under "To see the scenario fail":

        ```swift
        \#(Self.breakingLine)
        ```

        Build and run again: the check-in leaves the previous worker's previews in `Library/Caches`,
        and `sdlab run` exits 1, naming each file the scan read them in.

        How the app is judged, and how to bring your own code: `\#(lab)/Docs/your-app.md`.

        """#
    }

    /// `text` inside a Swift string literal.
    private func literal(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}
