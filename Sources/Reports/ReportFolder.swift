import DeviceContract
import DeviceProcesses
import Foundation

/// A report folder (`sdlab run --report DIR`): `results.json` (the run's `RunDocument`),
/// `trace.jsonl`, `timing.csv`, `junit.xml` and `report.html`, all drawn from the first two, so
/// that folders of several runs (the shards of a suite) merge into one.
public enum ReportFolder {
    public static let files = [results, trace, "timing.csv", "junit.xml", "report.html"]
    /// The two files the others are drawn from, which `read` reads back.
    static let results = "results.json"
    static let trace = "trace.jsonl"

    /// Creates `folder` if needed (0700) and writes every file (replacing earlier ones), each
    /// private to the user (0600) like the run folder the data comes from.
    public static func write(_ reports: [ScenarioReport], to folder: String) throws {
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try writePrivately(Reports.json(reports), to: folder + "/" + results)
        try writePrivately(Data(Reports.traceLines(reports).utf8), to: folder + "/" + trace)
        try writePrivately(Data(Reports.timingCSV(reports).utf8), to: folder + "/timing.csv")
        try writePrivately(Data(Reports.junit(reports).utf8), to: folder + "/junit.xml")
        try writePrivately(Data(ReportPage.html(reports).utf8), to: folder + "/report.html")
    }

    /// Replaces `path` with `data` in one step, the file readable by its user only. A path that
    /// names a device or a pipe (`--junit /dev/stdout`) is written to, never replaced by a
    /// rename (which would put a file where a device node was); a link or a folder is refused.
    public static func writePrivately(_ data: Data, to path: String) throws {
        var info = stat()
        if lstat(path, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFREG: break
            case S_IFLNK: throw ReportFileFailure(description: "\(path) is a link: not written through it")
            case S_IFDIR: throw ReportFileFailure(description: "\(path) is a folder")
            default: return try writeThrough(data, to: path)
            }
        }
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }

    /// Writes all of `data` to a device or a pipe that exists.
    private static func writeThrough(_ data: Data, to path: String) throws {
        let fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            throw ReportFileFailure(description: "cannot open \(path): \(errorText())")
        }
        defer { close(fd) }
        var rest = data[...]
        while !rest.isEmpty {
            let written = rest.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else {
                throw ReportFileFailure(description: "cannot write \(path): \(errorText())")
            }
            rest = rest.dropFirst(written)
        }
    }

    /// A folder's scenarios with their traces, as `write` left them.
    public static func read(_ folder: String) throws -> [ScenarioReport] {
        let document: RunDocument
        do {
            document = try RunDocument.read(folder + "/" + Self.results)
        } catch {
            throw ReportFileFailure(description: "\(folder) is not a report folder of sdlab run --report: \(error)")
        }
        // A report folder holds its trace too: without it the timelines would be drawn empty.
        guard let trace = try? String(contentsOfFile: folder + "/" + Self.trace, encoding: .utf8) else {
            throw ReportFileFailure(
                description: "\(folder) is not a whole report folder: \(folder)/\(Self.trace) cannot be read")
        }
        let events = Reports.events(inTraceLines: trace)
        return document.scenarios.map { scenario in
            var scenario = scenario
            scenario.events = events[scenario.file] ?? []
            return scenario
        }
    }

    /// Several folders' scenarios as one run, by scenario file (shards of one suite are
    /// dealt out in file order, so this restores it). A scenario in two folders is an error:
    /// the folders are not disjoint shards.
    public static func merge(_ folders: [String]) throws -> [ScenarioReport] {
        var seen: [String: String] = [:]
        var merged: [ScenarioReport] = []
        for folder in folders {
            for scenario in try read(folder) {
                if let other = seen[scenario.file] {
                    throw ReportFileFailure(description: "\(scenario.file) is in both \(other) and \(folder)")
                }
                seen[scenario.file] = folder
                merged.append(scenario)
            }
        }
        return merged.sorted { $0.file < $1.file }
    }
}
