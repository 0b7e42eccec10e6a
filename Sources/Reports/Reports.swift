import DeviceContract
import Foundation
import LeakScan
import RunResults
import Scenario

/// The machine-readable outputs of a run (Docs/outputs.md): JUnit XML, JSON, timing CSV and the merged
/// trace. Each is a pure function of the scenarios' reports.
public enum Reports {
    /// One `testsuite` per scenario, one `testcase` per step; a failed step carries its failures.
    public static func junit(_ reports: [ScenarioReport]) -> String {
        let failures = reports.map { $0.steps.filter { !$0.passed }.count }.reduce(0, +)
        let errors = reports.filter { $0.environmentFailure != nil }.count
        var lines = [
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<testsuites tests=\"\(reports.map(\.steps.count).reduce(0, +) + errors)\" failures=\"\(failures)\" errors=\"\(errors)\">",
        ]
        for report in reports {
            let failures = report.steps.filter { !$0.passed }.count
            lines.append(
                "  <testsuite name=\"\(xml(report.name))\" file=\"\(xml(report.file))\" tests=\"\(report.steps.count + (report.environmentFailure == nil ? 0 : 1))\" failures=\"\(failures)\" errors=\"\(report.environmentFailure == nil ? 0 : 1)\" time=\"\(report.seconds)\">"
            )
            if let why = report.environmentFailure {
                lines.append(
                    "    <testcase name=\"device\" classname=\"\(xml(report.file))\"><error message=\"\(xml(why))\"/></testcase>"
                )
            }
            for step in report.steps {
                let open = "    <testcase name=\"\(xml(step.step))\" classname=\"\(xml(step.location))\""
                let notes =
                    step.notes.isEmpty ? "" : "<system-out>\(xml(step.notes.joined(separator: "\n")))</system-out>"
                if step.passed {
                    lines.append(open + (notes.isEmpty ? "/>" : ">\(notes)</testcase>"))
                } else {
                    lines.append(
                        open
                            + "><failure message=\"\(xml(step.failures.first?.description ?? ""))\">\(xml(step.failures.map(\.description).joined(separator: "\n")))</failure>\(notes)</testcase>"
                    )
                }
            }
            lines.append("  </testsuite>")
        }
        lines.append("</testsuites>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The results as one JSON document (`RunDocument`).
    public static func json(_ reports: [ScenarioReport]) throws -> Data { try RunDocument(reports).encoded() }

    /// One line per session change and app of every run:
    /// `scenario,generation,app,sdk,mechanism,notified_ms,held,exposure_ms,open,run`. `held` is the
    /// other users' data the app held at the change (`cou1/plain,…`; empty: nothing was exposed,
    /// and there is no exposure); `exposure_ms` is empty while `open` says why; `run` counts
    /// from 1 (`--repeat`).
    public static func timingCSV(_ reports: [ScenarioReport]) -> String {
        var lines = ["scenario,generation,app,sdk,mechanism,notified_ms,held,exposure_ms,open,run"]
        for report in reports {
            for pair in report.pairs {
                lines.append(
                    [
                        csv(report.name), "\(pair.generation)", csv(pair.app), pair.sdk, pair.mechanism,
                        pair.notifiedMS.map { "\($0)" } ?? "", csv(pair.held), pair.exposureMS.map { "\($0)" } ?? "",
                        csv(pair.open ?? ""), "\(pair.run)",
                    ]
                    .joined(separator: ","))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Every event of every scenario's shown run as JSON lines, in time order, each with its
    /// scenario's name and file, its fields of the types its process wrote.
    public static func traceLines(_ reports: [ScenarioReport]) throws -> String {
        var out = ""
        for report in reports {
            for event in report.events {
                var object = event.fields.mapValues(\.json)
                object["t"] = event.t
                object["proc"] = event.proc
                object["event"] = event.event
                object["scenario"] = report.name
                object["scenario_file"] = report.file
                out +=
                    String(
                        decoding: try JSONSerialization.data(
                            withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]),
                        as: UTF8.self) + "\n"
            }
        }
        return out
    }

    /// `traceLines` read back: each scenario file's events, in order.
    public static func events(inTraceLines text: String) -> [String: [TraceEvent]] {
        var events: [String: [TraceEvent]] = [:]
        for line in text.split(separator: "\n") {
            guard var event = TraceEvent(line: line), case .string(let file) = event.fields["scenario_file"] else {
                continue
            }
            event.fields["scenario_file"] = nil
            event.fields["scenario"] = nil
            events[file, default: []].append(event)
        }
        return events
    }

    static func csv(_ text: String) -> String {
        // By scalar: "\r\n" is one Character, equal to neither line end alone.
        let special = text.unicodeScalars.contains { ",\"\n\r".unicodeScalars.contains($0) }
        return special ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
    }

    static func xml(_ text: String) -> String {
        var out = ""
        // Control characters are not allowed in XML (C0), or could steer a terminal that shows
        // the file: escaped first, as the console shows them; line breaks stay.
        for scalar in VisibleText.escaped(text, keepingLineBreaks: true).unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

extension TraceValue {
    /// The value as `JSONSerialization` writes it.
    fileprivate var json: Any {
        switch self {
        case .string(let text): text
        case .int(let number): number
        case .uint(let number): number
        case .bool(let flag): flag
        case .strings(let texts): texts
        }
    }
}
