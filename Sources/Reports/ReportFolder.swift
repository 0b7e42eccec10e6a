import DeviceContract
import Foundation

/// A report folder (`sdlab run --report DIR`): `results.json` (the run's `RunDocument`),
/// `trace.jsonl`, `timing.csv`, `junit.xml` and `report.html`, all drawn from the first two, so
/// that folders of several runs (the shards of a suite) merge into one.
public enum ReportFolder {
    public static let files = ["results.json", "trace.jsonl", "timing.csv", "junit.xml", "report.html"]

    /// Creates `folder` if needed and writes every file (replacing earlier ones).
    public static func write(_ reports: [ScenarioReport], to folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Reports.json(reports).write(to: URL(fileURLWithPath: folder + "/results.json"), options: .atomic)
        try Reports.traceLines(reports).write(toFile: folder + "/trace.jsonl", atomically: true, encoding: .utf8)
        try Reports.timingCSV(reports).write(toFile: folder + "/timing.csv", atomically: true, encoding: .utf8)
        try Reports.junit(reports).write(toFile: folder + "/junit.xml", atomically: true, encoding: .utf8)
        try ReportPage.html(reports).write(toFile: folder + "/report.html", atomically: true, encoding: .utf8)
    }

    public struct ReadFailure: Error, CustomStringConvertible {
        public let description: String
    }

    /// A folder's scenarios with their traces, as `write` left them.
    public static func read(_ folder: String) throws -> [ScenarioReport] {
        let document: RunDocument
        do {
            document = try RunDocument.decoded(from: Data(contentsOf: URL(fileURLWithPath: folder + "/results.json")))
        } catch {
            throw ReadFailure(description: "\(folder) is not a report folder of sdlab run --report: \(error)")
        }
        let trace = (try? String(contentsOfFile: folder + "/trace.jsonl", encoding: .utf8)) ?? ""
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
