import DeviceProcesses
import Foundation
import TestSupport
import Testing

/// report.html as a person sees it: rendered by headless Chromium after its script ran.
/// Skipped, with the reason printed, where Chromium is not installed, unless
/// `REQUIRE_CHROMIUM=1` (CI sets it) makes a missing browser a failure.
enum Browser {
    static let path = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static let required = ProcessInfo.processInfo.environment["REQUIRE_CHROMIUM"] == "1"
    static let runs = path != nil || required

    /// The page's DOM once its script ran (`--dump-dom`), `#all` opening every section.
    static func render(_ page: String) async throws -> String {
        let browser = try #require(
            path, "Chromium is required here (REQUIRE_CHROMIUM=1): apt-get install chromium")
        let result = try await run(
            browser,
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=10000", "--window-size=1280,900",
                "--dump-dom", "file://\(page)#all",
            ], timeout: .seconds(90))
        #expect(result.status == 0, "\(result.stderr.suffix(2000))")
        return result.stdout
    }
}

@Suite(
    .tags(.device), .devicesWanted,
    .serialized, .timeLimit(.minutes(3)),
    .enabled(if: Browser.runs, "Chromium is not installed (apt-get install chromium)"))
struct ReportBrowserTests {
    static let scenarios =
        [
            "side-by-side-check-in", "keep-all-app-is-caught-by-the-leak-scanner",
            "fault-stopped-app-overflows-with-posts-and-converges",
        ].map { RunCommandTests.library + "/\($0).yaml" } + [RunCommandTests.scenarios + "/broken-app-leaks.yaml"]

    @Test func aPersonSeesTheSummaryASectionPerScenarioAndTimelines() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-browser")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await run(
            sdlabPath, ["run", "--jobs", "2", "--report", folder + "/report"] + Self.scenarios,
            environment: environment(with: ["TMPDIR": folder]), timeout: .seconds(150))
        #expect(result.status == 1, "broken-app-leaks fails on purpose: \(result.stdout)")
        let dom = try await Browser.render(folder + "/report/report.html")

        #expect(dom.contains("SharedDeviceLab: 3 of 4 scenarios passed"), "\(dom.prefix(500))")
        #expect(!dom.contains("data-script-errors"), "no script error")
        #expect(!dom.contains("class=\"errors\""))
        let summary = try #require(
            dom.components(separatedBy: "<table class=\"summary\">").last?.components(
                separatedBy: "</table>"
            ).first)
        let rows = summary.components(separatedBy: "<tr>").dropFirst(2)
        #expect(rows.count == 4)
        #expect(rows.first?.contains("A deliberately broken app") == true, "the failure first: \(rows.first ?? "")")
        #expect(dom.components(separatedBy: "<details class=\"scenario\"").count - 1 == 4, "a section per scenario")

        // Every timeline was drawn (#all opens every section): lanes, ticks and marks.
        let timelines = dom.components(separatedBy: "<svg width=").dropFirst()
        #expect(timelines.count == 4, "one drawn timeline per scenario")
        for timeline in timelines {
            #expect(timeline.contains("class=\"lane\"") && timeline.contains("class=\"ticklabel\""))
            #expect(timeline.contains("class=\"m change\""), "session changes drawn")
        }
        #expect(dom.contains("class=\"m exposure\"") && dom.contains("class=\"m open\""), "exposure windows, one open")
        #expect(dom.contains("storm: "), "thousands of posts are summarised")
        #expect(dom.contains("<polyline class=\"cdf\""), "latency distributions")
        // The script ran to its end (it records when); how fast is measured, not tested here:
        // under a whole test suite's load it varies several-fold.
        let rendered = try #require(
            dom.firstRange(of: /data-rendered-ms="(\d+)"/).map { Int(dom[$0].split(separator: "\"")[1]) ?? -1 })
        #expect(rendered >= 0)
        print("ReportBrowserTests: loaded and drawn in \(rendered) ms")
    }
}
