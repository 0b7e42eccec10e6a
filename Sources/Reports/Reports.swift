import DeviceContract
import Foundation
import LeakScan
import Runner
import Scenario

/// The machine-readable outputs of a run (Docs/outputs.md): JUnit XML, JSON, timing CSV and the merged
/// trace. Each is a pure function of the results.
public enum Reports {
    /// One `testsuite` per scenario, one `testcase` per step; a failed step carries its failures.
    public static func junit(_ results: [ScenarioResult]) -> String {
        var lines = [
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<testsuites tests=\"\(results.map(\.steps.count).reduce(0, +))\" failures=\"\(results.map { $0.steps.filter { !$0.passed }.count }.reduce(0, +))\">",
        ]
        for result in results {
            let failures = result.steps.filter { !$0.passed }.count
            lines.append(
                "  <testsuite name=\"\(xml(result.scenario.name))\" file=\"\(xml(result.scenario.file))\" tests=\"\(result.steps.count)\" failures=\"\(failures)\" errors=\"\(result.environmentFailure == nil ? 0 : 1)\">"
            )
            if let why = result.environmentFailure {
                lines.append(
                    "    <testcase name=\"device\" classname=\"\(xml(result.scenario.file))\"><error message=\"\(xml(why))\"/></testcase>"
                )
            }
            for step in result.steps {
                let open = "    <testcase name=\"\(xml(step.title))\" classname=\"\(xml(step.location.description))\""
                let notes =
                    step.notes.isEmpty ? "" : "<system-out>\(xml(step.notes.joined(separator: "\n")))</system-out>"
                if step.passed {
                    lines.append(open + (notes.isEmpty ? "/>" : ">\(notes)</testcase>"))
                } else {
                    lines.append(
                        open
                            + "><failure message=\"\(xml(step.failures.first ?? ""))\">\(xml(step.failures.joined(separator: "\n")))</failure>\(notes)</testcase>"
                    )
                }
            }
            lines.append("  </testsuite>")
        }
        lines.append("</testsuites>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The results as one JSON document.
    public static func json(_ results: [ScenarioResult]) throws -> Data {
        let document: [String: Any] = [
            "passed": results.allSatisfy(\.passed),
            "scenarios": results.map { result -> [String: Any] in
                let sdk = Dictionary(uniqueKeysWithValues: result.scenario.apps.map { ($0.name, $0.sdk) })
                return [
                    "name": result.scenario.name, "file": result.scenario.file, "passed": result.passed,
                    "environment_failure": result.environmentFailure ?? NSNull(),
                    "scan": [
                        "current_user": result.scan.currentUser ?? NSNull(),
                        "apps": result.scan.apps.mapValues { found in
                            [
                                "leaks": found.leaks.map(finding), "retained": found.retained.map(finding),
                                "exposed": found.exposed.map(\.description),
                            ]
                        },
                    ]
                        as [String: Any],
                    "steps": result.steps.map {
                        [
                            "location": $0.location.description, "step": $0.title,
                            "passed": $0.passed, "failures": $0.failures, "notes": $0.notes,
                        ] as [String: Any]
                    },
                    "timing": TimingRow.table(result.timings, sdk: sdk).map { row -> [String: Any] in
                        [
                            "model": row.model, "mechanism": row.mechanism.rawValue, "count": row.count,
                            "open": row.open,
                            "notified_ms": percentiles(row.notified), "exposure_ms": percentiles(row.exposure),
                        ]
                    },
                    "open": result.timings.filter(\.isOpen).map { timing -> [String: Any] in
                        [
                            "generation": timing.generation, "app": timing.app, "held": timing.held.description,
                            "mechanism": timing.mechanism.rawValue, "reason": timing.openReason ?? "",
                        ]
                    },
                ]
            },
        ]
        return try JSONSerialization.data(
            withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }

    /// One line per session change and app: `scenario,generation,app,sdk,mechanism,notified_ms,held,exposure_ms,open`.
    /// `held` is the other users' data the app held at the change (`cou1/plain,…`; empty: nothing
    /// was exposed, and there is no exposure); `exposure_ms` is empty while `open` says why.
    public static func timingCSV(_ results: [ScenarioResult]) -> String {
        var lines = ["scenario,generation,app,sdk,mechanism,notified_ms,held,exposure_ms,open"]
        for result in results {
            let sdk = Dictionary(uniqueKeysWithValues: result.scenario.apps.map { ($0.name, $0.sdk.rawValue) })
            for timing in result.timings {
                lines.append(
                    [
                        csv(result.scenario.name), "\(timing.generation)", csv(timing.app), sdk[timing.app] ?? "",
                        timing.mechanism.rawValue, milliseconds(timing.notifiedAfter), csv(timing.held.description),
                        milliseconds(timing.exposure), csv(timing.openReason ?? ""),
                    ]
                    .joined(separator: ","))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Every event of every scenario as JSON lines, in time order, each with its scenario.
    public static func traceLines(_ results: [ScenarioResult]) throws -> String {
        var out = ""
        for result in results {
            for event in result.events {
                var object: [String: Any] = event.fields
                object["t"] = event.t
                object["proc"] = event.proc
                object["event"] = event.event
                object["scenario"] = result.scenario.name
                out +=
                    String(
                        decoding: try JSONSerialization.data(
                            withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]),
                        as: UTF8.self) + "\n"
            }
        }
        return out
    }

    /// A finding as the JSON gives it: whose, what kind, which file of the container.
    private static func finding(_ finding: LeakScanner.Finding) -> [String: Any] {
        [
            "user": finding.canary.user, "kind": finding.canary.kind.rawValue, "file": finding.place,
            "canary": finding.canary.description, "encrypted": finding.encrypted,
        ]
    }

    private static func percentiles(_ value: Percentiles?) -> Any {
        guard let value else { return NSNull() }
        return ["p50": value.p50, "p90": value.p90, "p99": value.p99, "max": value.max]
    }

    private static func milliseconds(_ nanoseconds: UInt64?) -> String {
        nanoseconds.map { String(Double($0) / 1_000_000) } ?? ""
    }

    static func csv(_ text: String) -> String {
        // By scalar: "\r\n" is one Character, equal to neither line end alone.
        let special = text.unicodeScalars.contains { ",\"\n\r".unicodeScalars.contains($0) }
        return special ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
    }

    static func xml(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\n", "\t": out.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20: out += " "
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
