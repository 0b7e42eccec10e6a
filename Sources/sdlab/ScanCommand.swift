import ArgumentParser
import DeviceContract
import Foundation
import LeakScan

struct ScanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Read a container folder as the leak scanner does, and list every record found.",
        discussion: """
            The scan a run makes of each app's container, on a folder of your choosing: a \
            container a run kept (`--keep`), or a copy of one. Every file is read as the app \
            reads it back (SQLite, property lists, archives, mail, base64, compression, sealed \
            boxes under every key the folder holds), and every name. It prints each record found \
            (canary, file, how it was read), what it could not read, and how long it took. Exit 0 \
            when it read everything and found nothing, 1 when it found a record, 3 when it could \
            not read everything (Docs/behaviour.md §8).
            """
    )

    @Argument(help: "The container folders to read, each as its own app.")
    var folders: [String]

    func validate() throws {
        for folder in folders {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                throw ValidationError("no folder at \(folder)")
            }
        }
    }

    func run() throws {
        var found = false
        var complete = true
        for folder in folders {
            let app = URL(fileURLWithPath: folder).lastPathComponent
            let start = ContinuousClock.now
            let scan = LeakScanner(container: folder, app: app).scan()
            let took = ContinuousClock.now - start
            for finding in scan {
                emitLine("\(finding.canary) \(finding.place)" + (finding.via.isEmpty ? "" : " [\(finding.via)]"))
            }
            for unreadable in scan.unreadable { emitLine("not read: \(unreadable.described())") }
            let milliseconds = Double(took.components.seconds) * 1e3 + Double(took.components.attoseconds) / 1e15
            emitLine(
                "\(folder): \(scan.count) records found, \(scan.unreadable.count) places not read, in "
                    + String(format: "%.3f ms", milliseconds))
            found = found || !scan.isEmpty
            complete = complete && scan.isComplete
        }
        if !complete { throw ExitCode(ExitCodes.environment) }
        if found { throw ExitCode(ExitCodes.failed) }
    }
}
