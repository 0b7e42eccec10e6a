import DeviceContract
import Foundation
import RunResults
import Scenario

/// `report.html`: one self-contained page (no outside file): a summary of every scenario
/// (failures first), the latency distributions, the leak scan, then a collapsible section per
/// scenario with its steps, timing and an interactive timeline drawn in the page from data it
/// carries (hover for the event, drag to zoom, double-click to zoom out). `#all` in the
/// address opens every section.
public enum ReportPage {
    public static func html(_ results: [ScenarioReport]) -> String {
        let passed = results.filter(\.passed).count
        let timelines = (try? timelineJSON(results)) ?? "[]"
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>SharedDeviceLab report</title>
            <style>
            \(style)
            </style></head><body>
            <h1>SharedDeviceLab: \(passed) of \(results.count) scenarios passed</h1>
            \(summary(results))
            \(LatencyChart.section(results))
            \(leakScan(results))
            <h2 class="part">Scenarios</h2>
            \(results.enumerated().map { section($1, index: $0) }.joined(separator: "\n"))
            <script type="application/json" id="timelines">\(timelines)</script>
            <script>
            \(script)
            </script>
            </body></html>

            """
    }

    /// Every scenario's timeline data, in order (null where it has no trace); JSON escapes
    /// `/`, so nothing in it can close the script element.
    static func timelineJSON(_ results: [ScenarioReport]) throws -> String {
        let data = results.map { $0.events.isEmpty ? nil : TimelineData($0) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys  // the same page for the same results
        // Inside a script element `<!--`, `<script` and `</script` change how the page is
        // parsed, whatever the JSON means: no `<`, `>` or `&` is written as itself (in JSON
        // they occur only inside strings, where the escapes read back the same).
        return String(decoding: try encoder.encode(data), as: UTF8.self)
            .replacingOccurrences(of: "<", with: "\\u003c").replacingOccurrences(of: ">", with: "\\u003e")
            .replacingOccurrences(of: "&", with: "\\u0026")
    }

    /// A row per scenario, failures first: outcome, duration, failed steps, worst exposure,
    /// open pairs, each linking to its section.
    static func summary(_ results: [ScenarioReport]) -> String {
        let order = results.indices.sorted { (results[$0].passed ? 1 : 0, $0) < (results[$1].passed ? 1 : 0, $1) }
        let rows = order.map { index in
            let result = results[index]
            let failed = result.steps.filter { !$0.passed }.count
            let worst = result.pairs.compactMap(\.exposureMS).max()
            let open = result.pairs.filter { $0.open != nil }.count
            let mark = result.passed ? "<span class=\"ok\">✓</span>" : "<span class=\"bad\">✗</span>"
            let outcome =
                result.environmentFailure != nil
                ? "device could not run" : failed > 0 ? "\(failed) of \(result.steps.count) steps failed" : "passed"
            return "<tr><td>\(mark)</td><td><a href=\"#s-\(index)\">\(Reports.xml(result.name))</a></td>"
                + "<td>\(outcome)\(result.runs > 1 ? " (\(result.failedRuns) of \(result.runs) runs failed)" : "")</td>"
                + "<td class=\"num\">\(String(format2: result.seconds)) s</td>"
                + "<td class=\"num\">\(worst.map { String(format2: $0) + " ms" } ?? "–")</td>"
                + "<td class=\"num\(open > 0 ? " bad" : "")\">\(open)</td></tr>"
        }.joined(separator: "\n")
        return """
            <table class="summary"><tr><th></th><th>scenario</th><th>outcome</th><th>duration</th><th>worst exposure</th><th>open pairs</th></tr>
            \(rows)
            </table>
            """
    }

    private static func section(_ result: ScenarioReport, index: Int) -> String {
        let steps = result.steps.map { step in
            let mark = step.passed ? "<span class=\"ok\">✓</span>" : "<span class=\"bad\">✗</span>"
            let failures = (step.failures.map(\.description) + step.notes.map { "! " + $0 }).map {
                "<div class=\"fail\">\(Reports.xml($0))</div>"
            }.joined()
            return
                "<tr><td>\(mark)</td><td>\(Reports.xml(step.step))\(failures)</td><td>\(Reports.xml(step.location))</td></tr>"
        }.joined(separator: "\n")
        let timing = result.rows.map { row in
            "<tr><td>\(row.model)</td><td>\(row.mechanism.rawValue)</td><td>\(row.count)</td><td>\(row.open)</td>"
                + "<td>\(row.notified?.text ?? "–")</td><td>\(row.exposure?.text ?? "–")</td></tr>"
        }.joined(separator: "\n")
        let timeline =
            result.events.isEmpty
            ? "<p>No trace.</p>" : "<div class=\"timeline\" data-index=\"\(index)\"></div>"
        return """
            <details class="scenario" id="s-\(index)"\(result.passed ? "" : " open")><summary><h2 class="\(result.passed ? "ok" : "bad")">\(result.passed ? "✓" : "✗") \(Reports.xml(result.name))</h2></summary>
            <div>\(Reports.xml(result.file)) · \(String(format2: result.seconds)) s\(result.runs > 1 ? " · shown: run \(result.shownRun) of \(result.runs)" : "")\(result.environmentFailure.map { " — <span class=\"bad\">the device could not run: \(Reports.xml($0))</span>" } ?? "")</div>
            \(apps(result))
            <table><tr><th></th><th>step</th><th>where</th></tr>
            \(steps)
            </table>
            <table><tr><th>model</th><th>mechanism</th><th>exposed pairs</th><th>open</th><th>notified ms (p50 / p90 / p99 / max)</th><th>exposure ms</th></tr>
            \(timing)
            </table>
            \(openPairs(result))
            \(scan(result))
            \(legend)
            \(timeline)
            </details>
            """
    }

    static let legend = """
        <div class="legend"><span style="color:#0969da">┆ session change</span><span style="color:#8250df">● post ▼ delivery</span>\
        <span style="color:#bf8700">◆ callback</span><span style="color:#1a7f37">▬ cleanup</span>\
        <span style="color:#cf222e">▮ exposure window</span><span style="color:#57606a">│ launch · check</span>\
        <span class="hint">hover for details · drag to zoom · double-click to zoom out</span></div>
        """

    /// Every finding of the end-of-run scans: by scenario, app, finding, user, kind and file.
    static func leakScan(_ results: [ScenarioReport]) -> String {
        struct Row: Hashable {
            let scenario: Int, app: String, finding: String, user: String, kind: String, file: String
        }
        var counts: [Row: Int] = [:]
        for (index, result) in results.enumerated() {
            for (app, found) in result.scan.apps {
                for (finding, list) in [("leak", found.leaks), ("retained", found.retained)] {
                    for item in list {
                        counts[
                            Row(
                                scenario: index, app: app, finding: finding, user: item.user, kind: item.kind,
                                file: item.file), default: 0] += 1
                    }
                }
                for canary in found.exposed {
                    let parts = canary.split(separator: "/").map(String.init)  // SDLAB-CANARY/USER/APP/KIND/N
                    counts[
                        Row(
                            scenario: index, app: app, finding: "exposed on screen",
                            user: parts.count > 1 ? parts[1] : "?", kind: parts.count > 3 ? parts[3] : "?", file: "–"),
                        default: 0] += 1
                }
            }
        }
        guard !counts.isEmpty else {
            return
                "<h2 class=\"part\">Leak scan</h2><p class=\"ok\">Nothing of another user readable at the end of any scenario.</p>"
        }
        let rows = counts.keys.sorted {
            ($0.scenario, $0.app, $0.finding, $0.user, $0.kind, $0.file) < (
                $1.scenario, $1.app, $1.finding, $1.user, $1.kind, $1.file
            )
        }.map { row in
            "<tr><td><a href=\"#s-\(row.scenario)\">\(Reports.xml(results[row.scenario].name))</a></td><td>\(Reports.xml(row.app))</td>"
                + "<td class=\"\(row.finding == "retained" ? "" : "bad")\">\(row.finding)</td><td>\(Reports.xml(row.user))</td>"
                + "<td>\(Reports.xml(row.kind))</td><td>\(Reports.xml(row.file))</td><td class=\"num\">\(counts[row]!)</td></tr>"
        }.joined(separator: "\n")
        return """
            <h2 class="part">Leak scan</h2>
            <table class="scan"><tr><th>scenario</th><th>app</th><th>finding</th><th>user</th><th>kind</th><th>file</th><th>records</th></tr>
            \(rows)
            </table>
            """
    }
}

extension ReportPage {
    /// Each app and the cleanup it ran, as its trace says (`launched`): apps alike are one row.
    static func apps(_ result: ScenarioReport) -> String {
        var rows = AppGroups<String>()
        for app in result.apps {
            rows.add(
                app.name,
                under: "<td>\(Reports.xml(app.sdk))\(app.background ? ", background mode" : "")</td>"
                    + "<td>\(Reports.xml(app.cleanup ?? "not launched"))</td>")
        }
        guard !rows.groups.isEmpty else { return "" }
        return "<table><tr><th>app</th><th>sdk</th><th>cleanup that ran</th></tr>\n"
            + rows.groups.map { "<tr><td>\(Reports.xml(AppNames.listed($0.apps)))</td>\($0.key)</tr>" }
            .joined(separator: "\n") + "</table>"
    }

    /// The pairs still open: another user's data the app still held readable, and why.
    static func openPairs(_ result: ScenarioReport) -> String {
        let open = result.shownTimings.filter(\.isOpen)
        guard !open.isEmpty else { return "" }
        let rows = open.map { timing in
            "<tr><td>\(timing.generation)</td><td>\(Reports.xml(timing.app))</td><td>\(Reports.xml(timing.held.description))</td>"
                + "<td>\(timing.mechanism.rawValue)</td><td class=\"bad\">\(Reports.xml(timing.openReason ?? ""))</td></tr>"
        }.joined(separator: "\n")
        return "<p class=\"bad\">Open: another user's data still readable</p>"
            + "<table><tr><th>generation</th><th>app</th><th>held</th><th>mechanism</th><th>why open</th></tr>\n\(rows)</table>"
    }

    /// The leak scan at the end: leaks and retained data by kind and file, what apps showed.
    static func scan(_ result: ScenarioReport) -> String {
        let lines = result.scan.lines
        guard !lines.isEmpty else {
            return
                "<p>Leak scan (hub user \(Reports.xml(result.scan.currentUser ?? "none"))): nothing of another user readable.</p>"
        }
        return "<p>Leak scan (hub user \(Reports.xml(result.scan.currentUser ?? "none"))):</p><ul>"
            + lines.map { "<li>\(Reports.xml($0))</li>" }.joined() + "</ul>"
    }
}
