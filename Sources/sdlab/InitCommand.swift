import ArgumentParser
import DeviceContract
import DeviceProcesses
import Foundation

struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Write a team package: an app on the facades, a scenario, and how to run them.",
        discussion: """
            Writes into DIR, which must be new or empty, a package that depends on this \
            SharedDeviceLab checkout by path: one executable app target written as an iOS team \
            writes it (an @main app delegate with scenes, or with --swiftui an @main SwiftUI App; \
            MSAL in shared device mode, FileManager, UserDefaults and the keychain) with the one \
            file added to run it in a device, one scenario in Scenarios/ that passes, and a README \
            with the two commands that build and run it and the line to delete to see it fail \
            (Docs/your-app.md). The app's files are the checkout's Sources/Examples/TeamNotes (or \
            TeamSwiftUINotes), which the checkout builds as ExampleTeamNotes (ExampleTeamSwiftUINotes). \
            Exit 0 when written, 2 for a DIR that is not empty or a checkout that cannot be found, 3 \
            when a file cannot be read or written.
            """
    )

    @Argument(help: ArgumentHelp("The folder to write the package into: new or empty.", valueName: "dir"))
    var directory: String

    @Flag(help: "Write a SwiftUI app (@main struct …: App, an account model, a view) instead of a UIKit one.")
    var swiftui = false

    @Option(
        help: ArgumentHelp(
            "The SharedDeviceLab checkout to depend on (default: the one this sdlab was built from).",
            valueName: "path"))
    var lab: String?

    func run() throws {
        let folder = URL(fileURLWithPath: directory).standardizedFileURL
        if let why = Self.notEmpty(folder.path) {
            throw failure(
                "\(directory) \(why): sdlab init writes only into a new or empty folder", code: ExitCodes.usage)
        }
        let checkout = try Self.checkout(lab)
        let sdlab = DevicePaths.executablePath()
        // An sdlab built inside the checkout finds the device's bus configuration by itself.
        let runCommand =
            sdlab.hasPrefix(checkout + "/") ? sdlab : "SDLAB_BUS_CONFIG=\(checkout)/Bus/device.conf \(sdlab)"
        let name = folder.lastPathComponent.isEmpty ? "TeamApp" : folder.lastPathComponent
        let template = TeamTemplate(
            name: name, lifecycle: swiftui ? .swiftUI : .uiKit, lab: checkout, runCommand: runCommand)
        let files: [(path: String, text: String)]
        do {
            files = try template.files()
        } catch {
            throw failure(
                "cannot read the app's files in \(checkout)/\(template.exampleFolder): \(error.localizedDescription)",
                code: ExitCodes.environment)
        }
        for file in files {
            let url = folder.appendingPathComponent(file.path)
            do {
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(file.text.utf8).write(to: url)
            } catch {
                throw failure("cannot write \(url.path): \(error.localizedDescription)", code: ExitCodes.environment)
            }
            emitLine("wrote \(url.path)")
        }
        note("next:\n  cd \(folder.path)\n  swift build\n  \(runCommand) run Scenarios")
    }

    /// Why `path` cannot take the package; nil when it does not exist or is an empty folder.
    static func notEmpty(_ path: String) -> String? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
        guard isDirectory.boolValue else { return "is a file" }
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: path) else { return "cannot be read" }
        return entries.isEmpty ? nil : "is not empty (it holds \(entries.count) entries)"
    }

    /// The checkout: `given`, else the one above this executable, else the one this file was
    /// compiled in; each must hold the SharedDeviceLab package.
    static func checkout(_ given: String?) throws -> String {
        if let given {
            let path = URL(fileURLWithPath: given).standardizedFileURL.path
            guard isCheckout(path) else {
                throw failure(
                    "--lab \(given) is not a SharedDeviceLab checkout (no Package.swift naming SharedDeviceLab there)",
                    code: ExitCodes.usage)
            }
            return path
        }
        var candidates: [URL] = []
        var folder = URL(fileURLWithPath: DevicePaths.executablePath()).deletingLastPathComponent()
        while folder.path != "/" {
            candidates.append(folder)
            folder.deleteLastPathComponent()
        }
        // Sources/sdlab/InitCommand.swift, in the checkout sdlab was built from.
        candidates.append(URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../.."))
        if let found = candidates.map(\.standardizedFileURL.path).first(where: isCheckout) { return found }
        throw failure(
            "cannot find the SharedDeviceLab checkout this sdlab was built from: name it with --lab PATH",
            code: ExitCodes.usage)
    }

    private static func isCheckout(_ path: String) -> Bool {
        guard let manifest = try? String(contentsOfFile: path + "/Package.swift", encoding: .utf8) else { return false }
        return manifest.contains("name: \"SharedDeviceLab\"")
    }
}
