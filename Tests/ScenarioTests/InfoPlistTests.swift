import DeviceContract
import Foundation
import Scenario
import SharedDevice
import Testing

/// `info_plist:` (Docs/scenarios.md): an iOS MSAL app's Info.plist, found from the scenario's
/// folder and read as MSAL reads it before anything runs.
@Suite struct InfoPlistTests {
    static func plist(_ body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0"><dict>\(body)</dict></plist>
        """
    }

    static let notes = plist(
        """
        <key>CFBundleIdentifier</key><string>com.contoso.notes</string>
        <key>CFBundleURLTypes</key><array>
          <dict><key>CFBundleURLSchemes</key><array><string>msauth.com.contoso.notes</string></array></dict>
          <dict><key>CFBundleURLSchemes</key><array><string>contoso</string></array></dict>
        </array>
        <key>LSApplicationQueriesSchemes</key><array><string>msauthv2</string><string>msauthv3</string></array>
        """)

    @Test func anInfoPlistGivesWhatMSALReads() throws {
        #expect(
            try InfoPlist.parse(Data(Self.notes.utf8))
                == AppInfo(
                    bundleIdentifier: "com.contoso.notes", urlSchemes: ["msauth.com.contoso.notes", "contoso"],
                    querySchemes: ["msauthv2", "msauthv3"]))
        let bare = Self.plist("<key>CFBundleIdentifier</key><string>com.contoso.bare</string>")
        #expect(try InfoPlist.parse(Data(bare.utf8)) == AppInfo(bundleIdentifier: "com.contoso.bare"))
    }

    @Test(arguments: [
        ("not a plist", "not a property list"),
        (plist(""), "no CFBundleIdentifier (every app has one)"),
        (
            plist("<key>CFBundleIdentifier</key><string>$(PRODUCT_BUNDLE_IDENTIFIER)</string>"),
            "$(PRODUCT_BUNDLE_IDENTIFIER) names a build setting, which Xcode fills in as it builds: write its value (com.contoso.notes, msauth.com.contoso.notes)"
        ),
        (
            plist("<key>CFBundleIdentifier</key><string>a.b</string><key>CFBundleURLTypes</key><string>x</string>"),
            "CFBundleURLTypes is not an array of dictionaries"
        ),
        (
            plist(
                "<key>CFBundleIdentifier</key><string>a.b</string><key>LSApplicationQueriesSchemes</key><integer>2</integer>"
            ),
            "LSApplicationQueriesSchemes is not an array of strings"
        ),
    ])
    func aFileMSALCouldNotReadIsNamed(text: String, problem: String) {
        #expect(performing: { try InfoPlist.parse(Data(text.utf8)) }, throws: { "\($0)" == problem })
    }

    @Test func aScenarioNamesAnInfoPlistThatIsThereAndReads() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plist-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.notes.write(toFile: folder + "/Info.plist", atomically: true, encoding: .utf8)
        try "not a plist".write(toFile: folder + "/broken.plist", atomically: true, encoding: .utf8)
        let file = folder + "/s.yaml"
        try """
        apps:
          - {name: a, sdk: msal, info_plist: Info.plist}
          - {name: b, sdk: msal, info_plist: missing.plist}
          - {name: c, sdk: msal, info_plist: broken.plist}
          - {name: d, sdk: msal-android, info_plist: Info.plist}

        """.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(
            throws: ScenarioProblems([
                ScenarioProblem(
                    location: Location(file: file, line: 3, column: 38),
                    message:
                        "info_plist: no file at \(folder)/missing.plist (a relative path starts at the scenario file's folder)"
                ),
                ScenarioProblem(
                    location: Location(file: file, line: 4, column: 38),
                    message: "info_plist: \(folder)/broken.plist: not a property list"),
                ScenarioProblem(
                    location: Location(file: file, line: 5, column: 46),
                    message:
                        "info_plist: only MSAL for iOS reads the app's Info.plist here (sdk: msal, not msal-android)"),
            ])
        ) {
            try Scenario.load(path: file)
        }
        let apps = try Scenario.parse("apps:\n  - {name: a, sdk: msal, info_plist: Info.plist}\n", file: file).apps
        #expect(apps.first?.infoPlist == folder + "/Info.plist")
    }
}
