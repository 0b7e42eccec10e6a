import Foundation

/// Latency against fleet size, sdlab and both C floors (medians over repeats), as one
/// self-contained SVG:
/// fleet size on a log axis, p50 latencies in ms on a linear one.
public enum BenchPlot {
    struct Series {
        let label: String
        let color: String
        let dashed: Bool
        let points: [(apps: Int, ms: Double)]
    }

    public static func svg(_ results: BenchResults) -> String {
        let runs = results.runs.map(\.median).sorted { $0.apps < $1.apps }
        func points(_ figure: (BenchSample) -> Double?) -> [(apps: Int, ms: Double)] {
            runs.compactMap { run in figure(run).map { (run.apps, $0) } }
        }
        let series = [
            Series(
                label: "sdlab, slowest app p50", color: "#c0392b", dashed: false,
                points: points { $0.lastDelivery?.p50 }),
            Series(
                label: "C recheck floor, slowest receiver p50", color: "#2c3e50", dashed: false,
                points: points { $0.floors.recheck?.slowest.p50 }),
            Series(
                label: "C plain floor, slowest receiver p50", color: "#16a085", dashed: false,
                points: points { $0.floors.plain?.slowest.p50 }),
            Series(
                label: "sdlab, every delivery p50", color: "#e67e22", dashed: true, points: points { $0.delivery?.p50 }),
            Series(
                label: "C recheck floor, every delivery p50", color: "#7f8c8d", dashed: true,
                points: points { $0.floors.recheck?.perReceiver.p50 }),
            Series(
                label: "C plain floor, every delivery p50", color: "#76d7c4", dashed: true,
                points: points { $0.floors.plain?.perReceiver.p50 }),
        ].filter { !$0.points.isEmpty }

        let (width, height) = (640.0, 440.0)
        let (left, right, top, bottom) = (60.0, 20.0, 30.0, 160.0)
        let apps = runs.map(\.apps)
        let (minApps, maxApps) = (Double(apps.min() ?? 1), Double(max(apps.max() ?? 10, (apps.min() ?? 1) + 1)))
        let maxMs = niceCeiling(series.flatMap { $0.points.map(\.ms) }.max() ?? 1)
        func x(_ apps: Int) -> Double {
            left + (log10(Double(apps)) - log10(minApps)) / max(log10(maxApps) - log10(minApps), 1e-9)
                * (width - left - right)
        }
        func y(_ ms: Double) -> Double { height - bottom - ms / maxMs * (height - top - bottom) }

        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(left)" y="18" font-size="14">Post → app delivery against fleet size (ms, same run)</text>

            """
        for step in 0...4 {
            let value = maxMs * Double(step) / 4
            svg += line(left, y(value), width - right, y(value), "#ddd")
            svg += text(left - 6, y(value) + 4, number(value), anchor: "end")
        }
        for count in apps {
            svg += line(x(count), height - bottom, x(count), height - bottom + 5, "#333")
            svg += text(x(count), height - bottom + 18, "\(count)", anchor: "middle")
        }
        svg += text((left + width - right) / 2, height - bottom + 34, "apps (log scale)", anchor: "middle")
        svg += line(left, height - bottom, width - right, height - bottom, "#333")
        for (index, entry) in series.enumerated() {
            let path = entry.points.map { "\(number(x($0.apps))),\(number(y($0.ms)))" }.joined(separator: " ")
            svg +=
                "<polyline fill=\"none\" stroke=\"\(entry.color)\" stroke-width=\"2\"\(entry.dashed ? " stroke-dasharray=\"6 4\"" : "") points=\"\(path)\"/>\n"
            for point in entry.points {
                svg +=
                    "<circle cx=\"\(number(x(point.apps)))\" cy=\"\(number(y(point.ms)))\" r=\"3\" fill=\"\(entry.color)\"/>\n"
            }
            let legendY = height - bottom + 54 + Double(index) * 16
            svg +=
                "<line x1=\"\(left)\" y1=\"\(legendY - 4)\" x2=\"\(left + 24)\" y2=\"\(legendY - 4)\" stroke=\"\(entry.color)\" stroke-width=\"2\"\(entry.dashed ? " stroke-dasharray=\"6 4\"" : "")/>\n"
            svg += text(left + 30, legendY, entry.label, anchor: "start")
        }
        return svg + "</svg>\n"
    }

    private static func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, _ color: String) -> String {
        "<line x1=\"\(number(x1))\" y1=\"\(number(y1))\" x2=\"\(number(x2))\" y2=\"\(number(y2))\" stroke=\"\(color)\"/>\n"
    }

    private static func text(_ x: Double, _ y: Double, _ content: String, anchor: String) -> String {
        "<text x=\"\(number(x))\" y=\"\(number(y))\" text-anchor=\"\(anchor)\">\(content)</text>\n"
    }

    private static func number(_ value: Double) -> String { BenchResults.number(value) }

    /// 1, 2 or 5 times a power of ten, at least `value`.
    private static func niceCeiling(_ value: Double) -> Double {
        var scale = 0.001
        while true {
            for step in [1.0, 2.0, 5.0] where step * scale >= value { return step * scale }
            scale *= 10
        }
    }
}
