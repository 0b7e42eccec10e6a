import Foundation
import Scenario
import TestSupport
import Testing

/// `sdlab init DIR`: a team package on the facades, with a scenario that names its app. (That
/// the package builds, passes, and fails once its cleanup is broken is checked in CI by
/// Scripts/check-team-package.sh: its first build takes about a minute.)
@Suite(.timeLimit(.minutes(1)))
struct InitCommandTests {
    /// This checkout: Tests/ScenarioTests/InitCommandTests.swift is in it.
    static let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().standardizedFileURL.path

    static func temporaryFolder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sdlab-init-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.path
    }

    @Test func writesAPackageWhoseScenarioNamesItsApp() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let package = folder + "/contoso"
        let result = try await run(sdlabPath, ["init", package])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("run Scenarios"), "\(result.stderr)")

        let files = [
            "Package.swift", "README.md", "Sources/NotesApp/AppDelegate.swift", "Sources/NotesApp/SceneDelegate.swift",
            "Sources/NotesApp/AccountChangeObserver.swift", "Sources/NotesApp/NotesStore.swift",
            "Sources/NotesApp/KeychainHelper.swift", "Sources/NotesApp/DeviceLabApp.swift",
            "Scenarios/notes-app-cleans-up-on-check-in.yaml",
        ]
        for file in files {
            #expect(FileManager.default.fileExists(atPath: package + "/" + file), "\(file)")
            #expect(result.stdout.contains("wrote \(package)/\(file)"), "\(result.stdout)")
        }
        let manifest = try String(contentsOfFile: package + "/Package.swift", encoding: .utf8)
        #expect(manifest.contains(".package(path: \"\(Self.checkout)\")"), "\(manifest)")
        #expect(manifest.contains(".executableTarget(\n            name: \"NotesApp\""), "\(manifest)")
        #expect(manifest.contains(".product(name: \"DeviceHost\""), "\(manifest)")
        #expect(
            manifest.contains(#".unsafeFlags(["-Xfrontend", "-import-module", "-Xfrontend", "Security"])"#),
            "\(manifest)")
        let delegate = try String(contentsOfFile: package + "/Sources/NotesApp/AppDelegate.swift", encoding: .utf8)
        #expect(delegate.contains("@main\nclass AppDelegate: UIResponder, UIApplicationDelegate"))
        #expect(delegate.contains("configuration.delegateClass = SceneDelegate.self"))
        // The keychain and Darwin helpers and the store import Foundation alone, as on iOS.
        for helper in ["AccountChangeObserver", "KeychainHelper", "NotesStore"] {
            let text = try String(contentsOfFile: package + "/Sources/NotesApp/\(helper).swift", encoding: .utf8)
            #expect(text.hasPrefix("import Foundation\n\n"), "\(helper)")
            #expect(!text.contains("import Security") && !text.contains("import MSAL"), "\(helper)")
        }
        let deviceLab = try String(contentsOfFile: package + "/Sources/NotesApp/DeviceLabApp.swift", encoding: .utf8)
        #expect(deviceLab.contains("extension AppDelegate: DeviceLabApp"))

        // Parsed without checking files: the app is not built yet.
        let scenarioFile = package + "/Scenarios/notes-app-cleans-up-on-check-in.yaml"
        let scenario = try Scenario.parse(
            try String(contentsOfFile: scenarioFile, encoding: .utf8), file: scenarioFile)
        #expect(scenario.apps.map(\.executable) == [package + "/.build/debug/NotesApp"])

        // The README's two commands, and the line it says to delete to see the run fail.
        let readme = try String(contentsOfFile: package + "/README.md", encoding: .utf8)
        #expect(readme.contains("swift build"))
        #expect(readme.contains(" run Scenarios"))
        let breaking = "try? fileManager.removeItem(at: previewsFolder(of: user))"
        #expect(readme.contains(breaking))
        let store = try String(contentsOfFile: package + "/Sources/NotesApp/NotesStore.swift", encoding: .utf8)
        #expect(store.contains("To see the scenario fail, delete the next line"))
        #expect(store.contains("the previews stay in Caches.\n        \(breaking)\n"))
    }

    /// `--swiftui`: the same store, helpers and scenario, with SwiftUI's lifecycle, and the plugin
    /// that makes its NSObject-based app delegate.
    @Test func writesASwiftUIPackage() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let package = folder + "/contoso"
        let result = try await run(sdlabPath, ["init", "--swiftui", package])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        for file in ["NotesApp", "AccountModel", "NotesView", "DeviceLabApp", "NotesStore", "KeychainHelper"] {
            #expect(result.stdout.contains("wrote \(package)/Sources/NotesApp/\(file).swift"), "\(result.stdout)")
        }
        #expect(!FileManager.default.fileExists(atPath: package + "/Sources/NotesApp/SceneDelegate.swift"))
        let manifest = try String(contentsOfFile: package + "/Package.swift", encoding: .utf8)
        #expect(manifest.contains(".product(name: \"SwiftUI\""), "\(manifest)")
        #expect(!manifest.contains(".product(name: \"UIKit\""), "\(manifest)")
        let lab = URL(fileURLWithPath: Self.checkout).lastPathComponent
        #expect(
            manifest.contains("plugins: [.plugin(name: \"AppDelegateAdaptors\", package: \"\(lab)\")]"), "\(manifest)")
        let app = try String(contentsOfFile: package + "/Sources/NotesApp/NotesApp.swift", encoding: .utf8)
        #expect(app.contains("@main\nstruct NotesApp: App {\n    @UIApplicationDelegateAdaptor(AppDelegate.self)"))
        #expect(app.contains("class AppDelegate: NSObject, UIApplicationDelegate"))
        let model = try String(contentsOfFile: package + "/Sources/NotesApp/AccountModel.swift", encoding: .utf8)
        #expect(model.hasPrefix("import Foundation\nimport MSAL\n"))
        #expect(model.contains("final class AccountModel: ObservableObject"))
        let readme = try String(contentsOfFile: package + "/README.md", encoding: .utf8)
        #expect(readme.contains("SwiftUI's lifecycle"))
        #expect(readme.contains("try? fileManager.removeItem(at: previewsFolder(of: user))"))
    }

    @Test func refusesAFolderThatIsNotEmpty() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("mine".utf8).write(to: URL(fileURLWithPath: folder + "/notes.txt"))
        let result = try await run(sdlabPath, ["init", folder, "--lab", Self.checkout])
        #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("\(folder) is not empty"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["notes.txt"])
    }

    @Test func refusesALabThatIsNoCheckout() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await run(sdlabPath, ["init", folder + "/app", "--lab", folder])
        #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("is not a SharedDeviceLab checkout"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/app"))
    }
}
