import DeviceContract
import Foundation

/// A report folder (`sdlab run --report DIR`): `results.json` (the run's `RunDocument`),
/// `trace.jsonl`, `timing.csv`, `junit.xml` and `report.html`, all drawn from the first two, so
/// that folders of several runs (the shards of a suite) merge into one.
public enum ReportFolder {
    public static let files = ["results.json", "trace.jsonl", "timing.csv", "junit.xml", "report.html"]

    /// Creates `folder` if needed (0700) and writes every file (replacing earlier ones), each
    /// private to the user (0600) like the run folder the data comes from.
    public static func write(_ reports: [ScenarioReport], to folder: String) throws {
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try writePrivately(Reports.json(reports), to: folder + "/results.json")
        try writePrivately(Data(Reports.traceLines(reports).utf8), to: folder + "/trace.jsonl")
        try writePrivately(Data(Reports.timingCSV(reports).utf8), to: folder + "/timing.csv")
        try writePrivately(Data(Reports.junit(reports).utf8), to: folder + "/junit.xml")
        try writePrivately(Data(ReportPage.html(reports).utf8), to: folder + "/report.html")
    }

    /// Replaces `path` with `data` in one step, the file readable by its user only.
    public static func writePrivately(_ data: Data, to path: String) throws {
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }

    /// A folder's scenarios with their traces, as `write` left them.
    public static func read(_ folder: String) throws -> [ScenarioReport] {
        let document: RunDocument
        do {
            document = try RunDocument.read(folder + "/results.json")
        } catch {
            throw ReadFailure(description: "\(folder) is not a report folder of sdlab run --report: \(error)")
        }
        // A report folder holds its trace too: without it the timelines would be drawn empty.
        guard let trace = try? String(contentsOfFile: folder + "/trace.jsonl", encoding: .utf8) else {
            throw ReadFailure(
                description: "\(folder) is not a whole report folder: \(folder)/trace.jsonl cannot be read")
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
                    throw ReadFailure(description: "\(scenario.file) is in both \(other) and \(folder)")
                }
                seen[scenario.file] = folder
                merged.append(scenario)
            }
        }
        return merged.sorted { $0.file < $1.file }
    }
}
