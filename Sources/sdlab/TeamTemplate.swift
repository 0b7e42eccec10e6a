import Foundation

/// The package `sdlab init` writes: a team's notes app on the facades, as Docs/your-app.md
/// describes it (the files of the checkout's `ExampleTeamNotes`, or `ExampleTeamSwiftUINotes`),
/// one scenario that runs it, and a README with the two commands.
struct TeamTemplate {
    /// How the app is written: UIKit's app and scene delegates, or SwiftUI's `App`.
    enum Lifecycle {
        case uiKit, swiftUI
    }

    /// The package's name (the folder's).
    let name: String
    let lifecycle: Lifecycle
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

    /// Where the app's files come from, in the checkout: the example the package builds
    /// (`ExampleTeamNotes`, `ExampleTeamSwiftUINotes`), so that what a team starts from is
    /// compiled and run with the lab.
    var exampleFolder: String {
        switch lifecycle {
        case .uiKit: "Sources/Examples/TeamNotes"
        case .swiftUI: "Sources/Examples/TeamSwiftUINotes"
        }
    }

    /// Each file's path in the package and its text, in the order they are listed.
    func files() throws -> [(path: String, text: String)] {
        [("Package.swift", packageManifest)] + (try appFiles()) + [
            (Self.scenarioFile, scenario),
            ("README.md", readme),
            (".gitignore", "/.build/\n/.swiftpm/\n"),
        ]
    }

    /// The example's files, as they are, under the app's target.
    private func appFiles() throws -> [(path: String, text: String)] {
        let folder = lab + "/" + exampleFolder
        return try FileManager.default.contentsOfDirectory(atPath: folder).sorted().map { name in
            ("Sources/\(Self.appTarget)/\(name)", try String(contentsOfFile: folder + "/" + name, encoding: .utf8))
        }
    }

    /// The dependency's identity, which `.product(package:)` names: a path dependency's is
    /// its folder's name.
    private var labIdentity: String { lab.split(separator: "/").last.map(String.init) ?? "SharedDeviceLab" }

    private var packageManifest: String {
        let facade = lifecycle == .swiftUI ? "SwiftUI" : "UIKit"
        // SwiftUI's app delegate is made by the plugin when it derives from NSObject.
        let plugins =
            lifecycle == .swiftUI
            ? ",\n            // Makes the app delegate, which derives from NSObject (Docs/your-app.md, \"A SwiftUI app\").\n"
                + "            plugins: [.plugin(name: \"AppDelegateAdaptors\", package: \"\(literal(labIdentity))\")]"
            : ""
        return #"""
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(
                name: "\#(literal(name))",
                dependencies: [.package(path: "\#(literal(lab))")],  // SharedDeviceLab
                targets: [
                    // The app: its files compile unchanged against SharedDeviceLab's MSAL, Security and
                    // \#(facade), as against the real ones on iOS; DeviceHost runs it in a device.
                    .executableTarget(
                        name: "\#(Self.appTarget)",
                        dependencies: [
                            .product(name: "MSAL", package: "\#(literal(labIdentity))"),
                            .product(name: "Security", package: "\#(literal(labIdentity))"),
                            .product(name: "\#(facade)", package: "\#(literal(labIdentity))"),
                            .product(name: "DeviceHost", package: "\#(literal(labIdentity))"),
                        ],
                        exclude: ["Info.plist"],  // read by MSAL as the app starts (the scenario's info_plist:)
                        swiftSettings: [
                            .swiftLanguageMode(.v5),
                            // As on iOS, where Foundation brings Security and CoreFoundation: a file that
                            // imports Foundation alone sees the keychain, CF names and the Darwin center.
                            .unsafeFlags(["-Xfrontend", "-import-module", "-Xfrontend", "Security"]),
                        ]\#(plugins))
                ]
            )

            """#
    }

    private var scenario: String {
        #"""
        # Worker cou1 checks the phone out, writes notes of three kinds into the app, and checks it in
        # in the Hub app, which takes the front. The Hub is MSAL's broker here (device.broker: hub, the
        # default), so the check-in is MSAL's global sign-out too; with Authenticator as the broker
        # (broker: authenticator) it would not be, and the app would have to hear of it another way.
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

    private var readme: String {
        #"""
        # \#(name)

        A shared-device app run in a SharedDeviceLab device, written by `sdlab init`.

        - `Sources/\#(Self.appTarget)/`: the app as an iOS team writes it, \#(appShape), against MSAL in
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
        swift build          # a few minutes the first time: it compiles the modules the app links
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

    /// How the README says the app is written.
    private var appShape: String {
        switch lifecycle {
        case .uiKit: "with UIKit's app and scene delegates"
        case .swiftUI:
            "with SwiftUI's lifecycle (`@main struct NotesApp: App`, an app delegate deriving from NSObject, "
                + "an `ObservableObject` account model)"
        }
    }

    /// `text` inside a Swift string literal.
    private func literal(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}
