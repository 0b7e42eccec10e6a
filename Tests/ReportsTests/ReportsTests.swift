import DeviceContract
import Foundation
import Runner
import Scenario
import SharedDevice
import Testing

@testable import Reports

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The outputs of a run (Docs/outputs.md) from a small hand-made result.
@Suite struct JUnitTests {
    static func document() throws -> XMLDocument {
        try XMLDocument(xmlString: Reports.junit(Sample.results()))
    }

    static func attribute(_ name: String, of node: XMLNode) -> String? {
        (node as? XMLElement)?.attribute(forName: name)?.stringValue
    }

    @Test func theCountsOfEverySuite() throws {
        let document = try Self.document()
        let root = try #require(document.rootElement())
        #expect(root.name == "testsuites")
        // The device that could not run is an error, and a test (as JUnit counts them).
        #expect(
            ["tests", "failures", "errors"].map { Self.attribute($0, of: root) } == ["4", "1", "1"])
        let suites = try document.nodes(forXPath: "/testsuites/testsuite")
        #expect(suites.count == 2)
        #expect(Self.attribute("name", of: suites[0]) == Sample.name)
        #expect(Self.attribute("file", of: suites[0]) == Sample.file)
        #expect(["tests", "failures", "errors"].map { Self.attribute($0, of: suites[0]) } == ["3", "1", "0"])
        #expect(["tests", "failures", "errors"].map { Self.attribute($0, of: suites[1]) } == ["1", "0", "1"])
        #expect(Self.attribute("time", of: suites[0]) == "1.5")
    }

    @Test func eachStepIsATestCaseAndAFailedOneCarriesItsFailures() throws {
        let document = try Self.document()
        let cases = try document.nodes(forXPath: "/testsuites/testsuite[1]/testcase")
        #expect(
            cases.map { Self.attribute("name", of: $0) } == [
                "enroll: stage", "launch: mail, notes, crm", "expect: crm",
            ])
        #expect(
            cases.map { Self.attribute("classname", of: $0) } == [
                "reports.yaml:8:5", "reports.yaml:10:5", "reports.yaml:12:5",
            ])
        #expect(try cases[0].nodes(forXPath: "*").isEmpty)

        let failures = try cases[2].nodes(forXPath: "failure")
        #expect(failures.count == 1)
        #expect(Self.attribute("message", of: failures[0]) == Sample.failure)
        #expect(failures[0].stringValue == Sample.failure + "\n" + Sample.secondFailure)
        #expect(try cases[2].nodes(forXPath: "system-out").map(\.stringValue) == [Sample.note])
        #expect(try cases[1].nodes(forXPath: "failure").isEmpty)
    }

    @Test func notesOfAPassedStepGoToSystemOut() throws {
        let document = try Self.document()
        let launch = try #require(document.nodes(forXPath: "/testsuites/testsuite[1]/testcase[2]").first)
        #expect(
            try launch.nodes(forXPath: "system-out").map(\.stringValue) == [
                "mail was running: launch brought it to the front"
            ])
    }

    @Test func aDeviceThatCouldNotRunIsAnError() throws {
        let document = try Self.document()
        let cases = try document.nodes(forXPath: "/testsuites/testsuite[2]/testcase")
        #expect(cases.count == 1)
        #expect(Self.attribute("name", of: cases[0]) == "device")
        let error = try #require(cases[0].nodes(forXPath: "error").first)
        #expect(Self.attribute("message", of: error) == Sample.environmentFailure)
    }

    @Test func specialCharactersAreEscaped() throws {
        let text = try Reports.junit(Sample.results())
        #expect(text.hasPrefix(#"<?xml version="1.0" encoding="UTF-8"?>"#))
        #expect(text.contains(#"name="Reports &lt;check&gt; &amp; &quot;quotes&quot;""#))
        #expect(!text.contains("<check>") && !text.contains("<cou1") && !text.contains("<here>"))
        #expect(text.contains("&lt;cou1 &amp; &quot;plain&quot;&gt;"))
    }

    @Test func noResultsIsAnEmptyDocument() throws {
        let document = try XMLDocument(xmlString: Reports.junit([]))
        let root = try #require(document.rootElement())
        #expect(Self.attribute("tests", of: root) == "0")
        #expect((root.children ?? []).allSatisfy { $0.kind != .element })
    }
}

@Suite struct TimingCSVTests {
    static let quotedName = #""Reports <check> & ""quotes""""#

    @Test func aHeaderAndALinePerChangeAndApp() throws {
        let lines = try Reports.timingCSV(Sample.results()).split(separator: "\n", omittingEmptySubsequences: false)
            .map(String.init)
        #expect(
            lines == [
                "scenario,generation,app,sdk,mechanism,notified_ms,held,exposure_ms,open,run",
                Self.quotedName + ",1,mail,msal,launch,0.2,,,,1",
                Self.quotedName + ",2,mail,msal,signal,0.5,cou1/plain,3.0,,1",
                Self.quotedName
                    + #",2,crm,ws1,foreground,12.5,"cou1/plain,cou1/sensitive",,"cleanup failed: hook said ""no"", <twice> & more",1"#,
                Self.quotedName + ",2,notes,msal,none,,,,,1",
                "",
            ])
    }

    @Test func everyLineHasTenColumns() throws {
        for line in try Reports.timingCSV(Sample.results()).split(separator: "\n") {
            #expect(Self.fields(of: String(line)).count == 10, "\(line)")
        }
        #expect(Self.fields(of: Self.quotedName + ",a") == [Sample.name, "a"])
    }

    @Test func lineEndsAndCommasAreQuoted() {
        #expect(
            Reports.csv("a\r\nb") == "\"a\r\nb\"" && Reports.csv("a\rb") == "\"a\rb\""
                && Reports.csv("plain") == "plain")
    }

    @Test func noTimingsIsTheHeaderAlone() {
        #expect(
            Reports.timingCSV([]) == "scenario,generation,app,sdk,mechanism,notified_ms,held,exposure_ms,open,run\n")
    }

    /// A CSV line's fields, quotes undone.
    static func fields(of line: String) -> [String] {
        var fields: [String] = []
        var field = ""
        var quoted = false
        var characters = Array(line)[...]
        while let character = characters.popFirst() {
            switch (character, quoted) {
            case ("\"", true) where characters.first == "\"":
                field.append("\"")
                characters.removeFirst()
            case ("\"", _): quoted.toggle()
            case (",", false):
                fields.append(field)
                field = ""
            default: field.append(character)
            }
        }
        return fields + [field]
    }
}

@Suite struct JSONReportTests {
    static func document() throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Reports.json(Sample.results())) as? [String: Any])
    }

    static func scenarios() throws -> [[String: Any]] {
        try #require(document()["scenarios"] as? [[String: Any]])
    }

    @Test func theKeysAndWhetherEachPassed() throws {
        let document = try Self.document()
        #expect(document["passed"] as? Bool == false)
        let scenarios = try Self.scenarios()
        #expect(scenarios.count == 2)
        #expect(
            Set(scenarios[0].keys) == [
                "name", "file", "tags", "passed", "environment_failure", "runs", "failed_runs", "shown_run",
                "duration_s", "apps", "scan", "steps", "timing", "pairs", "open",
            ])
        #expect(scenarios[0]["name"] as? String == Sample.name && scenarios[0]["file"] as? String == Sample.file)
        #expect(scenarios[0]["passed"] as? Bool == false)
        #expect(scenarios[0]["environment_failure"] is NSNull)
        #expect(scenarios[1]["environment_failure"] as? String == Sample.environmentFailure)
        #expect(scenarios[1]["passed"] as? Bool == false)
    }

    @Test func theSteps() throws {
        let steps = try #require(Self.scenarios()[0]["steps"] as? [[String: Any]])
        #expect(steps.map { $0["step"] as? String } == ["enroll: stage", "launch: mail, notes, crm", "expect: crm"])
        #expect(
            steps.map { $0["location"] as? String } == ["reports.yaml:8:5", "reports.yaml:10:5", "reports.yaml:12:5"])
        #expect(steps.map { $0["passed"] as? Bool } == [true, true, false])
        #expect(steps[2]["failures"] as? [String] == [Sample.failure, Sample.secondFailure])
        #expect(steps[2]["notes"] as? [String] == [Sample.note])
        #expect(steps[0]["failures"] as? [String] == [] && steps[0]["notes"] as? [String] == [])
    }

    @Test func theTimingTableCountsOnlyExposedPairs() throws {
        let timing = try #require(Self.scenarios()[0]["timing"] as? [[String: Any]])
        #expect(timing.map { "\($0["model"] ?? "") \($0["mechanism"] ?? "")" } == ["msal signal", "ws1 foreground"])
        #expect(timing.map { $0["count"] as? Int } == [1, 1])
        #expect(timing.map { $0["open"] as? Int } == [0, 1])
        let notified = try #require(timing[0]["notified_ms"] as? [String: Double])
        #expect(Set(notified.keys) == ["p50", "p90", "p99", "max"])
        #expect(abs(notified["p50"]! - 0.5) < 0.01)
        let exposure = try #require(timing[0]["exposure_ms"] as? [String: Double])
        #expect(abs(exposure["max"]! - 3.0) < 0.01)
        #expect(timing[1]["exposure_ms"] is NSNull, "an open pair has no exposure")
    }

    @Test func theOpenPairsWithTheirReason() throws {
        let open = try #require(Self.scenarios()[0]["open"] as? [[String: Any]])
        #expect(open.count == 1)
        #expect(open[0]["generation"] as? Int == 2)
        #expect(open[0]["app"] as? String == "crm")
        #expect(open[0]["held"] as? String == "cou1/plain,cou1/sensitive")
        #expect(open[0]["mechanism"] as? String == "foreground")
        #expect(open[0]["reason"] as? String == Sample.openReason)
        #expect(try (Self.scenarios()[1]["open"] as? [Any])?.isEmpty == true)
    }

    @Test func theScanByKindAndFile() throws {
        let scan = try #require(Self.scenarios()[0]["scan"] as? [String: Any])
        #expect(scan["current_user"] is NSNull)
        let apps = try #require(scan["apps"] as? [String: [String: Any]])
        #expect(Set(apps.keys) == ["crm"])
        let crm = try #require(apps["crm"])
        let leaks = try #require(crm["leaks"] as? [[String: Any]])
        #expect(leaks.count == 1)
        #expect(leaks[0]["user"] as? String == "cou1" && leaks[0]["kind"] as? String == "plain")
        #expect(leaks[0]["file"] as? String == "documents/cou1/plain-1-1.txt")
        #expect(leaks[0]["canary"] as? String == "SDLAB-CANARY/cou1/crm/plain/1")
        #expect(leaks[0]["encrypted"] as? Bool == false)
        let retained = try #require(crm["retained"] as? [[String: Any]])
        #expect(retained.count == 1)
        #expect(
            retained[0]["kind"] as? String == "preferences" && retained[0]["file"] as? String == "preferences/cou1.json"
        )
        #expect(retained[0]["encrypted"] as? Bool == true)
        #expect(crm["exposed"] as? [String] == ["SDLAB-CANARY/cou1/crm/plain/1"])
    }

    @Test func keysAreSortedAndSlashesUnescaped() throws {
        let text = String(decoding: try Reports.json(Sample.results()), as: UTF8.self)
        #expect(text.contains("documents/cou1/plain-1-1.txt") && !text.contains(#"\/"#))
        let environment = try #require(text.range(of: "\"environment_failure\""))
        let file = try #require(text.range(of: "\"file\""))
        #expect(environment.lowerBound < file.lowerBound)
    }
}

@Suite struct ReportPageTests {
    static func page() throws -> String { try ReportPage.html(Sample.results()) }

    /// The first scenario's section of the page.
    static func firstSection() throws -> String {
        let page = try page()
        let start = try #require(page.range(of: "<h2"))
        let end = try #require(page.range(of: "<h2", range: start.upperBound..<page.endIndex))
        return String(page[start.lowerBound..<end.lowerBound])
    }

    @Test func selfContained() throws {
        let page = try Self.page().lowercased()
        #expect(page.hasPrefix("<!doctype html>"))
        #expect(page.hasSuffix("</html>\n"))
        for outside in ["<script", "<link", "src=", "href=", "@import", "url("] {
            #expect(!page.contains(outside), "\(outside)")
        }
        #expect(try Self.page().contains("0 of 2 scenarios passed"))
    }

    @Test func escaping() throws {
        let page = try Self.page()
        #expect(page.contains("Reports &lt;check&gt; &amp; &quot;quotes&quot;"))
        for raw in ["<check>", "<cou1", "<here>", "<twice>", "<no socket>"] {
            #expect(!page.contains(raw), "\(raw)")
        }
        #expect(
            page.contains(
                #"<div class="fail">reports.yaml:13:7: crm.leaks: expected 0, got 1 &lt;cou1 &amp; &quot;plain&quot;&gt;</div>"#
            ))
        #expect(
            page.contains(
                #"<div class="fail">! crm: cleanup (hook ./clean.sh) for cou1 failed: said &quot;no&quot; &lt;here&gt; &amp; there</div>"#
            ))
        #expect(
            page.contains(
                "the device could not run: dbus-daemon did not start: &lt;no socket&gt; &amp; &quot;gone&quot;"))
    }

    @Test func theOpenPairsTableWithTheReason() throws {
        let section = try Self.firstSection()
        #expect(section.contains("Open: another user's data still readable"))
        #expect(
            section.contains(
                #"<tr><td>2</td><td>crm</td><td>cou1/plain,cou1/sensitive</td><td>foreground</td>"#
                    + #"<td class="bad">cleanup failed: hook said &quot;no&quot;, &lt;twice&gt; &amp; more</td></tr>"#))
        #expect(!section.contains("<td>mail</td><td>cou1/plain</td>"), "a clean pair is not open")
        #expect(try !Self.page().components(separatedBy: "<h2")[2].contains("Open:"))
    }

    @Test func theAppsTableGroupsAppsAlike() throws {
        let section = try Self.firstSection()
        #expect(section.contains("<tr><th>app</th><th>sdk</th><th>cleanup that ran</th></tr>"))
        #expect(section.contains("<tr><td>mail, notes</td><td>msal, background mode</td><td>wipe-all</td></tr>"))
        #expect(
            section.contains(
                "<tr><td>crm</td><td>ws1</td><td>hook /abs/clean.sh &amp; &quot;x&quot; (keeps preferences)</td></tr>"))
        #expect(section.contains("<tr><td>idle</td><td>msal-android</td><td>not launched</td></tr>"))
    }

    @Test func theStepsTimingAndScan() throws {
        let section = try Self.firstSection()
        #expect(section.contains(#"<h2 class="bad">✗ Reports &lt;check&gt;"#))
        #expect(section.contains(#"<tr><td><span class="bad">✗</span></td><td>expect: crm"#))
        #expect(section.contains("<td>reports.yaml:12:5</td>"))
        #expect(section.contains("<tr><td>msal</td><td>signal</td><td>1</td><td>0</td>"))
        #expect(section.contains("<tr><td>ws1</td><td>foreground</td><td>1</td><td>1</td>"))
        #expect(section.contains("<li>crm: leaks 1: cou1 plain ×1 (documents/cou1/plain-1-1.txt)</li>"))
        #expect(section.contains("<li>crm: retained 1: cou1 preferences ×1 (preferences/cou1.json)</li>"))
        #expect(section.contains("<li>crm: exposed 1 on screen: cou1 ×1</li>"))
    }

    /// The first scenario's SVG, parsed as XML.
    static func timeline() throws -> XMLDocument {
        let section = try firstSection()
        let start = try #require(section.range(of: "<svg"))
        let end = try #require(section.range(of: "</svg>"))
        return try XMLDocument(xmlString: String(section[start.lowerBound..<end.upperBound]))
    }

    /// An attribute by name (read from the list: in the SVG's default namespace,
    /// `attribute(forName:)` finds none).
    static func attribute(_ name: String, of node: XMLNode) -> String? {
        (node as? XMLElement)?.attributes?.first { $0.name == name }?.stringValue
    }

    @Test func theTimelineIsWellFormedSVGWithALanePerProcess() throws {
        let svg = try #require(Self.timeline().rootElement())
        #expect(svg.name == "svg")
        let labels = try svg.nodes(forXPath: "*[local-name()='text']").map(\.stringValue)
        #expect(
            Array(labels.prefix(4)) == ["hub", "mail", "notes", "crm"], "lanes in the scenario's order; idle never ran")
        let changes = try svg.nodes(forXPath: "*[local-name()='line']")
        #expect(changes.count == 2, "a dashed line per session change")
        #expect(try Self.page().contains("<p>No trace.</p>"), "the scenario that could not run has no timeline")
    }

    @Test func anExposureBandOnlyForTheExposedPairs() throws {
        let svg = try #require(Self.timeline().rootElement())
        let bands = try svg.nodes(forXPath: "*[local-name()='rect'][starts-with(*[local-name()='title'], 'exposure')]")
        #expect(bands.count == 2, "mail (clean) and crm (open); not the pairs that held nothing")
        let titles = bands.compactMap(\.stringValue)
        #expect(titles.contains { $0.hasPrefix("exposure after generation 2 (held cou1/plain): 3.0 ms") })
        #expect(
            titles.contains {
                $0 == "exposure after generation 2 (held cou1/plain,cou1/sensitive): open: " + Sample.openReason
            })
        #expect(!titles.contains { $0.contains("generation 1") })

        // The axis: 110 px of labels, then 980 px for the 2 s from the first event to the last;
        // t0 is half-way. Lanes are 34 px apart from y = 30: mail is the second, crm the fourth.
        let mail = try #require(bands.first { $0.stringValue?.contains("3.0 ms") == true })
        #expect(Self.attribute("x", of: mail) == "600.0" && Self.attribute("y", of: mail) == "56.0")
        #expect(Self.attribute("fill-opacity", of: mail) == "0.18")
        let width = try #require(Self.attribute("width", of: mail).flatMap(Double.init))
        #expect(abs(width - 980 * 0.0015) < 0.001, "3 ms of 2 s")
        let crm = try #require(bands.first { $0.stringValue?.contains("open:") == true })
        #expect(Self.attribute("x", of: crm) == "600.0" && Self.attribute("y", of: crm) == "124.0")
        #expect(Self.attribute("width", of: crm) == "490.0", "open: to the end of the run")
        #expect(Self.attribute("fill-opacity", of: crm) == "0.35")
    }

    @Test func marksForPostsDeliveriesCallbacksAndCleanups() throws {
        let svg = try #require(Self.timeline().rootElement())
        let titles = try svg.nodes(forXPath: "*/*[local-name()='title']").compactMap(\.stringValue)
        #expect(titles.contains { $0.hasPrefix("posted name=\(NotifyCenter.accountChanged) state=2 at 1000.1 ms") })
        #expect(titles.contains { $0.hasPrefix("post-received ") })
        #expect(titles.contains { $0.hasPrefix("callback name=current-account(none,cou1) trigger=signal") })
        let cleanups = try svg.nodes(
            forXPath: "*[local-name()='rect'][starts-with(*[local-name()='title'], 'cleanup-')]")
        #expect(cleanups.map { Self.attribute("fill", of: $0) } == ["#1a7f37", "#cf222e"], "green clean, red failed")
    }
}
