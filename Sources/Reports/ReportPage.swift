import DeviceContract
import Runner
import Scenario

/// `report.html`: one self-contained page (no script, no outside file) with each scenario's
/// steps, its timing table and an SVG swimlane timeline.
public enum ReportPage {
    public static func html(_ results: [ScenarioReport]) -> String {
        let passed = results.filter(\.passed).count
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>SharedDeviceLab report</title>
            <style>
            body { font: 14px system-ui, sans-serif; margin: 24px; color: #222; }
            h1 { font-size: 20px; } h2 { font-size: 17px; margin-top: 32px; }
            table { border-collapse: collapse; margin: 8px 0; } td, th { padding: 2px 10px; text-align: left; border-bottom: 1px solid #eee; }
            .ok { color: #1a7f37; } .bad { color: #cf222e; } .fail { color: #cf222e; font-family: monospace; font-size: 12px; }
            svg text { font: 11px system-ui, sans-serif; }
            .legend span { margin-right: 14px; }
            </style></head><body>
            <h1>SharedDeviceLab: \(passed) of \(results.count) scenarios passed</h1>
            \(results.map(section).joined(separator: "\n"))
            </body></html>

            """
    }

    private static func section(_ result: ScenarioReport) -> String {
        let steps = result.steps.map { step in
            let mark = step.passed ? "<span class=\"ok\">✓</span>" : "<span class=\"bad\">✗</span>"
            let failures = (step.failures + step.notes.map { "! " + $0 }).map {
                "<div class=\"fail\">\(Reports.xml($0))</div>"
            }.joined()
            return
                "<tr><td>\(mark)</td><td>\(Reports.xml(step.step))\(failures)</td><td>\(Reports.xml(step.location))</td></tr>"
        }.joined(separator: "\n")
        let timing = result.rows.map { row in
            "<tr><td>\(row.model)</td><td>\(row.mechanism.rawValue)</td><td>\(row.count)</td><td>\(row.open)</td>"
                + "<td>\(row.notified?.text ?? "–")</td><td>\(row.exposure?.text ?? "–")</td></tr>"
        }.joined(separator: "\n")
        return """
            <h2 class="\(result.passed ? "ok" : "bad")">\(result.passed ? "✓" : "✗") \(Reports.xml(result.name))</h2>
            <div>\(Reports.xml(result.file))\(result.environmentFailure.map { " — <span class=\"bad\">the device could not run: \(Reports.xml($0))</span>" } ?? "")</div>
            \(apps(result))
            <table><tr><th></th><th>step</th><th>where</th></tr>
            \(steps)
            </table>
            <table><tr><th>model</th><th>mechanism</th><th>exposed pairs</th><th>open</th><th>notified ms (p50 / p90 / p99 / max)</th><th>exposure ms</th></tr>
            \(timing)
            </table>
            \(openPairs(result))
            \(scan(result))
            \(Timeline(result).svg)
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
                under: "<td>\(app.sdk)\(app.background ? ", background mode" : "")</td>"
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

/// The swimlane timeline: a lane per process; session changes across every lane, posts,
/// deliveries, callbacks and cleanups as marks, exposure windows as bands, on one time axis.
struct Timeline {
    let events: [TraceEvent]
    let lanes: [String]
    let timings: [SessionChangeTiming]

    static let laneHeight = 34.0, labelWidth = 110.0, width = 1100.0

    init(_ result: ScenarioReport) {
        events = result.events
        let procs = Set(result.events.map(\.proc))
        lanes = (procs.contains("hub") ? ["hub"] : []) + result.apps.map(\.name).filter(procs.contains)
        timings = result.shownTimings
    }

    var svg: String {
        guard let first = events.first?.t, let last = events.last?.t, !lanes.isEmpty else { return "<p>No trace.</p>" }
        let span = Double(max(last - first, 1))
        func x(_ t: UInt64) -> Double {
            Self.labelWidth + (Double(t - min(t, first)) / span) * (Self.width - Self.labelWidth - 10)
        }
        func y(_ proc: String) -> Double { Double(lanes.firstIndex(of: proc) ?? 0) * Self.laneHeight + 30 }
        let height = Double(lanes.count) * Self.laneHeight + 40
        var shapes: [String] = []
        for (index, lane) in lanes.enumerated() {
            let top = Double(index) * Self.laneHeight + 30
            shapes.append(
                "<rect x=\"0\" y=\"\(top - 12)\" width=\"\(Self.width)\" height=\"\(Self.laneHeight)\" fill=\"\(index % 2 == 0 ? "#f6f8fa" : "#fff")\"/>"
            )
            shapes.append("<text x=\"4\" y=\"\(top + 4)\">\(Reports.xml(lane))</text>")
        }
        // A window for each change at which the app held another user's data: until clean, or
        // to the end while open.
        for timing in timings where lanes.contains(timing.app) && timing.exposed {
            let end = timing.clean ?? last
            let what = timing.exposure.map { "\(Double($0) / 1e6) ms" } ?? "open: \(timing.openReason ?? "")"
            shapes.append(
                "<rect x=\"\(x(timing.t0))\" y=\"\(y(timing.app) - 8)\" width=\"\(max(x(end) - x(timing.t0), 1))\" height=\"16\" fill=\"#cf222e\" fill-opacity=\"\(timing.isOpen ? 0.35 : 0.18)\"><title>\(Reports.xml("exposure after generation \(timing.generation) (held \(timing.held)): \(what)"))</title></rect>"
            )
        }
        for event in events where lanes.contains(event.proc) {
            let (cx, cy) = (x(event.t), y(event.proc))
            let tip =
                "<title>\(Reports.xml(event.event)) \(Reports.xml(event.fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))) at \(Double(event.t - first) / 1e6) ms</title>"
            switch event.name {
            case .sessionChanged:
                shapes.append(
                    "<line x1=\"\(cx)\" y1=\"16\" x2=\"\(cx)\" y2=\"\(height - 8)\" stroke=\"#0969da\" stroke-dasharray=\"4 3\">\(tip)</line>"
                )
                shapes.append(
                    "<text x=\"\(cx + 3)\" y=\"12\" fill=\"#0969da\">\(Reports.xml(event[.state] ?? "")) \(Reports.xml(event[.user] ?? ""))</text>"
                )
            case .posted: shapes.append("<circle cx=\"\(cx)\" cy=\"\(cy)\" r=\"5\" fill=\"#8250df\">\(tip)</circle>")
            case .postReceived:
                shapes.append(
                    "<path d=\"M\(cx - 5) \(cy - 6) L\(cx + 5) \(cy - 6) L\(cx) \(cy + 2) Z\" fill=\"#8250df\">\(tip)</path>"
                )
            case .callback:
                shapes.append(
                    "<path d=\"M\(cx) \(cy - 6) L\(cx + 5) \(cy) L\(cx) \(cy + 6) L\(cx - 5) \(cy) Z\" fill=\"#bf8700\">\(tip)</path>"
                )
            case .cleanupFinished, .cleanupFailed:
                let start =
                    events.last { $0.proc == event.proc && $0.is(.cleanupStarted) && $0.t <= event.t }?.t ?? event.t
                shapes.append(
                    "<rect x=\"\(x(start))\" y=\"\(cy + 4)\" width=\"\(max(cx - x(start), 2))\" height=\"6\" fill=\"\(event.is(.cleanupFinished) ? "#1a7f37" : "#cf222e")\">\(tip)</rect>"
                )
            case .launched, .ready, .terminated:
                shapes.append(
                    "<rect x=\"\(cx - 1)\" y=\"\(cy - 9)\" width=\"2\" height=\"18\" fill=\"#57606a\">\(tip)</rect>")
            case .checkStarted:
                shapes.append("<circle cx=\"\(cx)\" cy=\"\(cy)\" r=\"2.5\" fill=\"#57606a\">\(tip)</circle>")
            default: break
            }
        }
        let axis =
            "<text x=\"\(Self.labelWidth)\" y=\"\(height - 2)\">0 ms</text><text x=\"\(Self.width - 90)\" y=\"\(height - 2)\">\(Int(span / 1e6)) ms</text>"
        return """
            <div class="legend"><span style="color:#0969da">┆ session change</span><span style="color:#8250df">● post ▼ delivery</span>\
            <span style="color:#bf8700">◆ callback</span><span style="color:#1a7f37">▬ cleanup</span>\
            <span style="color:#cf222e">▮ exposure window</span><span style="color:#57606a">│ launch · check</span></div>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(Self.width))" height="\(Int(height))" viewBox="0 0 \(Int(Self.width)) \(Int(height))">
            \(shapes.joined(separator: "\n"))
            \(axis)
            </svg>
            """
    }
}
