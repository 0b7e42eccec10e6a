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
            ("Sources/\(Self.appTarget)/SceneDelegate.swift", sceneDelegate),
            ("Sources/\(Self.appTarget)/AccountChangeObserver.swift", accountChangeObserver),
            ("Sources/\(Self.appTarget)/NotesStore.swift", notesStore),
            ("Sources/\(Self.appTarget)/KeychainHelper.swift", keychainHelper),
            ("Sources/\(Self.appTarget)/DeviceLabApp.swift", deviceLabApp),
            ("Sources/\(Self.appTarget)/Info.plist", infoPlist),
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
                    exclude: ["Info.plist"],  // read by MSAL as the app starts (the scenario's info_plist:)
                    swiftSettings: [
                        .swiftLanguageMode(.v5),
                        // As on iOS, where Foundation brings Security and CoreFoundation: a file that
                        // imports Foundation alone sees the keychain, CF names and the Darwin center.
                        .unsafeFlags(["-Xfrontend", "-import-module", "-Xfrontend", "Security"]),
                    ])
            ]
        )

        """#
    }

    private var appDelegate: String {
        #"""
        import MSAL
        import UIKit

        /// A notes app for frontline workers on a shared phone, written as an iOS team writes it
        /// against MSAL in shared device mode, with scenes: the app delegate makes MSAL's client at
        /// launch, listens for the broker's account-change notification and answers the scene's
        /// configuration; the scene delegate (SceneDelegate.swift) checks the account each time
        /// the app comes to the foreground. A changed account means the previous worker's data goes.
        @main
        class AppDelegate: UIResponder, UIApplicationDelegate {
            var msalApplication: MSALPublicClientApplication?
            let notes = NotesStore()
            private var accountChanges: AccountChangeObserver?

            func application(
                _ application: UIApplication,
                didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
            ) -> Bool {
                let configuration = MSALPublicClientApplicationConfig(
                    clientId: "00000000-0000-0000-0000-000000000000", redirectUri: "msauth.com.contoso.notes://auth",
                    authority: nil)
                do {
                    msalApplication = try MSALPublicClientApplication(configuration: configuration)
                } catch {
                    NSLog("MSAL could not start: \(error)")
                }
                // The broker posts this on every global sign-in and sign-out. It carries nothing:
                // the app asks MSAL what changed.
                accountChanges = AccountChangeObserver(name: "SHARED_MODE_CURRENT_ACCOUNT_CHANGED") { [weak self] in
                    self?.refreshAccount()
                }
                return true
            }

            func application(
                _ application: UIApplication, configurationForConnecting connectingSceneSession: UISceneSession,
                options: UIScene.ConnectionOptions
            ) -> UISceneConfiguration {
                let configuration = UISceneConfiguration(name: "Default Configuration", sessionRole: connectingSceneSession.role)
                configuration.delegateClass = SceneDelegate.self
                return configuration
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

    private var sceneDelegate: String {
        #"""
        import MSAL
        import UIKit

        /// The app's window scene: it checks the account each time it comes to the foreground (its
        /// first connection included) and hands the broker's answers to MSAL.
        class SceneDelegate: UIResponder, UIWindowSceneDelegate {
            var window: UIWindow?

            func scene(
                _ scene: UIScene, willConnectTo session: UISceneSession, options connectionOptions: UIScene.ConnectionOptions
            ) {
                guard let windowScene = scene as? UIWindowScene else { return }
                window = UIWindow(windowScene: windowScene)
                window?.rootViewController = UIViewController()
                window?.makeKeyAndVisible()
            }

            func sceneWillEnterForeground(_ scene: UIScene) {
                (UIApplication.shared.delegate as? AppDelegate)?.refreshAccount()
            }

            func scene(_ scene: UIScene, openURLContexts URLContexts: Set<UIOpenURLContext>) {
                guard let urlContext = URLContexts.first else { return }
                MSALPublicClientApplication.handleMSALResponse(
                    urlContext.url, sourceApplication: urlContext.options.sourceApplication)
            }
        }

        """#
    }

    private var accountChangeObserver: String {
        #"""
        import Foundation

        /// Calls `handler` on the main queue each time a Darwin notification named `name` is
        /// posted, for as long as the observer lives.
        final class AccountChangeObserver {
            private let handler: () -> Void

            init(name: String, handler: @escaping () -> Void) {
                self.handler = handler
                CFNotificationCenterAddObserver(
                    CFNotificationCenterGetDarwinNotifyCenter(), Unmanaged.passUnretained(self).toOpaque(),
                    { _, observer, _, _, _ in
                        guard let observer = observer else { return }
                        Unmanaged<AccountChangeObserver>.fromOpaque(observer).takeUnretainedValue().handler()
                    }, name as CFString, nil, .deliverImmediately)
            }

            deinit {
                CFNotificationCenterRemoveEveryObserver(
                    CFNotificationCenterGetDarwinNotifyCenter(), Unmanaged.passUnretained(self).toOpaque())
            }
        }

        """#
    }

    private var notesStore: String {
        #"""
        import Foundation

        /// Where the app keeps a worker's data: notes in Documents, a preview of each in Caches, the
        /// worker's preferences in the user defaults, and confidential notes in the keychain.
        final class NotesStore {
            var currentUser: String?
            private let fileManager = FileManager.default
            private let defaults = UserDefaults.standard
            private let keychain = KeychainHelper(service: "com.contoso.notes.confidential")

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
                    try keychain.set(Data(text.utf8), account: id, label: user)
                case "preferences":
                    defaults.set(text, forKey: "prefs.\(user).\(id)")
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
                for key in defaults.dictionaryRepresentation().keys where key.hasPrefix("prefs.\(user).") {
                    defaults.removeObject(forKey: key)
                }
                keychain.removeAll(label: user)
            }
        }

        """#
    }

    private var keychainHelper: String {
        #"""
        import Foundation

        /// The app's generic passwords of one service in the keychain.
        struct KeychainHelper {
            let service: String

            enum KeychainError: Error {
                case unhandled(OSStatus)
            }

            /// Stores `data` for `account`, replacing what was there.
            func set(_ data: Data, account: String, label: String) throws {
                var query = baseQuery
                query[kSecAttrAccount as String] = account
                SecItemDelete(query as CFDictionary)
                query[kSecAttrLabel as String] = label
                query[kSecValueData as String] = data
                query[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
                let status = SecItemAdd(query as CFDictionary, nil)
                guard status == errSecSuccess else { throw KeychainError.unhandled(status) }
            }

            /// The data stored for `account`, if any.
            func data(account: String) -> Data? {
                var query = baseQuery
                query[kSecAttrAccount as String] = account
                query[kSecReturnData as String] = kCFBooleanTrue
                query[kSecMatchLimit as String] = kSecMatchLimitOne
                var result: CFTypeRef?
                guard SecItemCopyMatching(query as CFDictionary, &result) == noErr else { return nil }
                return result as? Data
            }

            /// Removes every item labelled `label`.
            func removeAll(label: String) {
                var query = baseQuery
                query[kSecAttrLabel as String] = label
                SecItemDelete(query as CFDictionary)
            }

            private var baseQuery: [String: Any] {
                [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
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
          - name: notes
            sdk: msal
            background: true
            executable: ../.build/debug/\#(Self.appTarget)
            info_plist: ../Sources/\#(Self.appTarget)/Info.plist
            cleanup: own
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

    /// The app's Info.plist as MSAL's setup asks: its redirect URI's scheme, and the broker's
    /// schemes it may query.
    private var infoPlist: String {
        #"""
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
          <key>CFBundleIdentifier</key>
          <string>com.contoso.notes</string>
          <key>CFBundleURLTypes</key>
          <array>
            <dict>
              <key>CFBundleURLSchemes</key>
              <array>
                <string>msauth.com.contoso.notes</string>
              </array>
            </dict>
          </array>
          <key>LSApplicationQueriesSchemes</key>
          <array>
            <string>msauthv2</string>
            <string>msauthv3</string>
          </array>
        </dict>
        </plist>

        """#
    }

    private var readme: String {
        #"""
        # \#(name)

        A shared-device app run in a SharedDeviceLab device, written by `sdlab init`.

        - `Sources/\#(Self.appTarget)/`: the app as an iOS team writes it, with scenes, against MSAL in
          shared device mode, FileManager, UserDefaults and the keychain. `KeychainHelper.swift`,
          `AccountChangeObserver.swift` and `NotesStore.swift` import Foundation alone, as on iOS:
          the target's `-import-module Security` setting brings the keychain and CoreFoundation.
        - `Sources/\#(Self.appTarget)/DeviceLabApp.swift`: the one file added to run it in a device.
        - `Sources/\#(Self.appTarget)/Info.plist`: the app's bundle identifier and URL schemes; MSAL
          checks its redirect URI against them as it starts, as on iOS.
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
