import Foundation
import RunResults

/// The latency distributions of a run: for notified and for exposure, one cumulative curve
/// (CDF) per model × mechanism over every exposed pair of every scenario, on a logarithmic
/// axis of ms, drawn as SVG.
enum LatencyChart {
    static let (width, height, left, bottom) = (520.0, 240.0, 44.0, 30.0)
    static let colors = ["#0969da", "#cf222e", "#1a7f37", "#8250df", "#bf8700", "#57606a", "#e16f24", "#1b7c83"]
    /// Points drawn per curve at most: the sorted samples, evenly thinned.
    static let pointLimit = 200

    static func section(_ results: [ScenarioReport]) -> String {
        let pairs = results.flatMap(\.pairs).filter { !$0.held.isEmpty }
        guard !pairs.isEmpty else { return "" }
        let groups = Dictionary(grouping: pairs) { "\($0.sdk) \($0.mechanism)" }
        let names = groups.keys.sorted()
        let charts = [("notified", \ScenarioReport.Pair.notifiedMS), ("exposure", \ScenarioReport.Pair.exposureMS)].map
        {
            measure, value in
            chart(
                title: "\(measure), ms",
                curves: names.map { name in (name, groups[name]!.compactMap { $0[keyPath: value] }) })
        }
        return "<h2 class=\"part\">Latency (CDF over every exposed pair)</h2><div class=\"cdfs\">"
            + charts.joined() + "</div>"
    }

    static func chart(title: String, curves: [(name: String, values: [Double])]) -> String {
        let all = curves.flatMap(\.values).filter { $0 > 0 }
        guard let low = all.min(), let high = all.max() else { return "" }
        let (from, to) = (floor(log10(low)), max(ceil(log10(high)), floor(log10(low)) + 1))
        let plotWidth = width - left - 10
        func x(_ ms: Double) -> Double { left + (log10(max(ms, low)) - from) / (to - from) * plotWidth }
        func y(_ share: Double) -> Double { 10 + (1 - share) * (height - bottom - 10) }
        var shapes: [String] = []
        for decade in Int(from)...Int(to) {
            let tick = x(pow(10, Double(decade)))
            shapes.append("<line class=\"tick\" x1=\"\(tick)\" x2=\"\(tick)\" y1=\"10\" y2=\"\(height - bottom)\"/>")
            shapes.append("<text class=\"ticklabel\" x=\"\(tick)\" y=\"\(height - 12)\">\(label(decade))</text>")
        }
        for share in [0.5, 0.9, 0.99] {
            shapes.append(
                "<line class=\"tick\" x1=\"\(left)\" x2=\"\(width - 10)\" y1=\"\(y(share))\" y2=\"\(y(share))\"/>"
                    + "<text class=\"ticklabel\" x=\"\(left - 4)\" y=\"\(y(share) + 4)\" text-anchor=\"end\">p\(Int(share * 100))</text>"
            )
        }
        var legend: [String] = []
        for (index, curve) in curves.enumerated() where !curve.values.isEmpty {
            let color = colors[index % colors.count]
            let sorted = curve.values.sorted()
            let step = max(sorted.count / pointLimit, 1)
            let points =
                stride(from: 0, to: sorted.count, by: step).map { ($0, sorted[$0]) } + [
                    (sorted.count - 1, sorted.last!)
                ]
            let path = points.map { "\(x($0.1)),\(y(Double($0.0 + 1) / Double(sorted.count)))" }.joined(separator: " ")
            shapes.append(
                "<polyline class=\"cdf\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" points=\"\(path)\"><title>\(Reports.xml(curve.name)): \(sorted.count) pairs, median \(String(format2: sorted[sorted.count / 2])) ms</title></polyline>"
            )
            // Few samples are also drawn as dots: one alone would draw no line.
            if sorted.count <= 20 {
                for (position, value) in sorted.enumerated() {
                    shapes.append(
                        "<circle cx=\"\(x(value))\" cy=\"\(y(Double(position + 1) / Double(sorted.count)))\" r=\"3\" fill=\"\(color)\"/>"
                    )
                }
            }
            legend.append("<span style=\"color:\(color)\">━ \(Reports.xml(curve.name)) (n = \(sorted.count))</span>")
        }
        return """
            <figure class="cdf"><figcaption>\(title)</figcaption>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))">
            \(shapes.joined(separator: "\n"))
            </svg><div class="legend">\(legend.joined())</div></figure>
            """
    }

    private static func label(_ decade: Int) -> String {
        decade >= 0 ? "\(Int(pow(10, Double(decade))))" : "0." + String(repeating: "0", count: -decade - 1) + "1"
    }
}
