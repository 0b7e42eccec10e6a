import DeviceContract
import Foundation
import RunResults
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

    /// A name holding control characters (an escape sequence, a carriage return, a character XML
    /// forbids) is written as its escapes: the document stays well-formed and shows the name.
    @Test func controlCharactersAreShownEscapedAndTheDocumentStaysValid() throws {
        var results = try Sample.results()
        results[0].name = "red \u{1B}[31mname\rforged\u{0}\u{7F}"
        let text = Reports.junit(results)
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" } && !text.contains("\u{7F}"))
        let document = try XMLDocument(xmlString: text)
        let suite = try #require(document.nodes(forXPath: "/testsuites/testsuite").first)
        #expect(Self.attribute("name", of: suite) == #"red \u{1B}[31mname\rforged\0\u{7F}"#)
        #expect(ReportPage.html(results).contains(#"red \u{1B}[31mname\rforged\0\u{7F}"#))
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
        #expect(document["version"] as? Int == RunDocument.currentVersion && RunDocument.currentVersion == 2)
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
        let failures = try #require(steps[2]["failures"] as? [[String: Any]])
        #expect(
            failures.map { "\($0["location"] as? String ?? ""): \($0["message"] as? String ?? "")" } == [
                Sample.failure, Sample.secondFailure,
            ])
        #expect(failures.map { $0["kind"] as? String } == ["mismatch", "mismatch"])
        #expect(steps[2]["notes"] as? [String] == [Sample.note])
        #expect((steps[0]["failures"] as? [Any])?.isEmpty == true && steps[0]["notes"] as? [String] == [])
    }

    /// A mismatch keeps its parts: which apps, which field, what was expected and what was got.
    @Test func aMismatchIsKeptAsItsParts() throws {
        let steps = try #require(Self.scenarios()[0]["steps"] as? [[String: Any]])
        let failures = try #require(steps[2]["failures"] as? [[String: Any]])
        let leaks = try #require(failures[0]["mismatch"] as? [String: Any])
        #expect(leaks["apps"] as? [String] == ["crm"] && leaks["name"] as? String == "leaks")
        #expect(leaks["expected"] as? String == "0" && leaks["got"] as? String == "1")
        #expect(leaks["found"] as? String == #"<cou1 & "plain">"#)
        #expect((failures[1]["mismatch"] as? [String: Any])?["found"] is NSNull)
        #expect(failures[0]["invariant"] is NSNull)
    }

    @Test func aStepErrorAndAnInvariantSayWhichTheyAre() throws {
        let location = Location(file: "x.yaml", line: 3, column: 5)
        let error = ScenarioReport.Failure(StepFailure(location: location, reason: .stepError("mail is not running")))
        #expect(
            error.kind == .stepError && error.mismatch == nil && error.description == "x.yaml:3:5: mail is not running")
        let broken = ScenarioReport.Failure(
            StepFailure(
                location: location, reason: .invariant(.generationNeverGoesBack, process: "hub", detail: "2 after 3")))
        #expect(broken.kind == .invariant && broken.message == "2 after 3")
        #expect(broken.invariant?.rule == "generation never goes back" && broken.invariant?.process == "hub")
    }

    /// A document of version 1, whose failures are lines, reads as before and is written again
    /// in this version's shape; a later version is refused, naming it.
    @Test func theLastVersionIsReadAndALaterOneRefused() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var object = try Self.document()
        object.removeValue(forKey: "version")
        var scenarios = try Self.scenarios()
        var steps = try #require(scenarios[0]["steps"] as? [[String: Any]])
        steps[2]["failures"] = [Sample.failure, Sample.secondFailure]
        scenarios[0]["steps"] = steps
        object["scenarios"] = scenarios
        let old = try RunDocument.decoded(from: JSONSerialization.data(withJSONObject: object))
        #expect(old.version == RunDocument.currentVersion)
        #expect(old.scenarios[0].steps[2].failures.map(\.description) == [Sample.failure, Sample.secondFailure])
        #expect(Reports.junit(old.scenarios) == Reports.junit(try Sample.results()))
        object["version"] = 3
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: folder + "/results.json"))
        #expect {
            try RunDocument.read(folder + "/results.json")
        } throws: { error in
            "\(error)" == "\(folder)/results.json is a run document of version 3; this sdlab reads versions 1 to 2"
        }
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
        let start = try #require(page.range(of: "<details class=\"scenario\" id=\"s-0\""))
        let end = try #require(page.range(of: "</details>", range: start.upperBound..<page.endIndex))
        return String(page[start.lowerBound..<end.upperBound])
    }

    @Test func selfContained() throws {
        let page = try Self.page().lowercased()
        #expect(page.hasPrefix("<!doctype html>"))
        #expect(page.hasSuffix("</html>\n"))
        for outside in ["<link", "src=", "@import", "url(http", "<iframe", "fetch("] {
            #expect(!page.contains(outside), "\(outside)")
        }
        let links = page.components(separatedBy: "href=\"").dropFirst()
        #expect(!links.isEmpty && links.allSatisfy { $0.hasPrefix("#") }, "links only within the page")
        #expect(try Self.page().contains("0 of 2 scenarios passed"))
    }

    @Test func escaping() throws {
        let page = try Self.page()
        #expect(page.contains("Reports &lt;check&gt; &amp; &quot;quotes&quot;"))
        let markup = try #require(page.components(separatedBy: "<script type=\"application/json\"").first)
        for raw in ["<check>", "<cou1", "<here>", "<twice>", "<no socket>"] {
            #expect(!markup.contains(raw), "\(raw)")
        }
        #expect(
            page.contains(
                #"<div class="fail">reports.yaml:13:7: crm.leaks: expected 0, got 1: &lt;cou1 &amp; &quot;plain&quot;&gt;</div>"#
            ))
        #expect(
            page.contains(
                "the device could not run: dbus-daemon did not start: &lt;no socket&gt; &amp; &quot;gone&quot;"))
        // The timeline data cannot close its script element.
        let data = try #require(
            page.components(separatedBy: "<script type=\"application/json\" id=\"timelines\">").last)
        let json = try #require(data.components(separatedBy: "</script>").first)
        #expect(!json.contains("</"))
    }

    @Test func theSummaryComesFirstFailuresFirstWithLinks() throws {
        let page = try Self.page()
        let summary = try #require(page.range(of: "<table class=\"summary\">"))
        #expect(summary.lowerBound < (try #require(page.range(of: "<details"))).lowerBound)
        let rows = page[summary.upperBound...].components(separatedBy: "</table>")[0].components(separatedBy: "<tr>")
            .dropFirst(2)
        #expect(rows.count == 2)
        #expect(rows.allSatisfy { $0.contains("class=\"bad\">✗") })
        #expect(
            rows.first?.contains(##"<a href="#s-0">Reports &lt;check&gt; &amp; &quot;quotes&quot;</a>"##) == true)
        #expect(rows.first?.contains("1 of 3 steps failed") == true)
        #expect(rows.first?.contains("<td class=\"num\">1.50 s</td>") == true, "the run's duration")
        #expect(rows.first?.contains("<td class=\"num\">3.00 ms</td>") == true, "the worst exposure")
        #expect(rows.first?.contains("<td class=\"num bad\">1</td>") == true, "one open pair")
        #expect(rows.last?.contains("device could not run") == true)
    }

    @Test func aFailedScenarioIsOpenAPassedOneCollapsed() throws {
        #expect(try Self.firstSection().hasPrefix(#"<details class="scenario" id="s-0" open>"#))
        var passing = try Sample.runResults()[0]
        passing.steps = [passing.steps[0]]
        passing.timings = []
        let page = ReportPage.html([ScenarioReport(runs: [(passing, 1)])])
        #expect(page.contains(#"<details class="scenario" id="s-0"><summary>"#))
    }

    @Test func theOpenPairsTableWithTheReason() throws {
        let section = try Self.firstSection()
        #expect(section.contains("Open: another user's data still readable"))
        #expect(
            section.contains(
                #"<tr><td>2</td><td>crm</td><td>cou1/plain,cou1/sensitive</td><td>foreground</td>"#
                    + #"<td class="bad">cleanup failed: hook said &quot;no&quot;, &lt;twice&gt; &amp; more</td></tr>"#))
        #expect(!section.contains("<td>mail</td><td>cou1/plain</td>"), "a clean pair is not open")
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
        #expect(section.contains("<li>crm: exposed 1 on screen: cou1 ×1</li>"))
        #expect(section.contains(#"<div class="timeline" data-index="0"></div>"#))
        #expect(try Self.page().contains("<p>No trace.</p>"), "the scenario that could not run has no timeline")
    }

    @Test func theLeakScanByAppUserKindAndFile() throws {
        let page = try Self.page()
        let scan = try #require(
            page.components(separatedBy: "<table class=\"scan\">").last?.components(separatedBy: "</table>").first)
        #expect(
            scan.contains(
                #"<td>crm</td><td class="bad">leak</td><td>cou1</td><td>plain</td><td>documents/cou1/plain-1-1.txt</td><td class="num">1</td>"#
            ))
        #expect(
            scan.contains(
                #"<td>crm</td><td class="">retained</td><td>cou1</td><td>preferences</td><td>preferences/cou1.json</td>"#
            ))
        #expect(scan.contains(#"<td class="bad">exposed on screen</td><td>cou1</td><td>plain</td><td>–</td>"#))
    }

    @Test func aLatencyCurvePerModelAndMechanism() throws {
        let page = try Self.page()
        #expect(page.contains("Latency (CDF over every exposed pair)"))
        #expect(page.contains("msal signal (n = 1)") && page.contains("ws1 foreground (n = 1)"))
        #expect(
            page.components(separatedBy: "<polyline class=\"cdf\"").count - 1 == 3,
            "notified ×2, exposure ×1 (crm is open)")
    }
}

@Suite struct TimelineDataTests {
    static func data() throws -> TimelineData { TimelineData(try Sample.results()[0]) }

    @Test func aLanePerProcessThatRanInTheScenariosOrder() throws {
        let data = try Self.data()
        #expect(data.lanes == ["hub", "mail", "notes", "crm"], "idle never ran")
        #expect(data.span == 2_000_000, "µs from the first event to the last")
    }

    @Test func marksCarryTheirEventTimeAndGeneration() throws {
        let data = try Self.data()
        #expect(data.marks.filter { $0.kind == .change }.map(\.generation) == [1, 2])
        let posted = try #require(data.marks.first { $0.kind == .post })
        #expect(posted.lane == 0 && posted.t == 1_000_100 && posted.generation == 2)
        #expect(posted.text == "hub: posted name=\(NotifyCenter.accountChanged) state=2")
        let callback = try #require(data.marks.first { $0.kind == .callback })
        #expect(callback.lane == 1 && callback.text == "mail: callback name=current-account(none,cou1) trigger=signal")
        #expect(data.marks.contains { $0.kind == .delivery } && data.marks.contains { $0.kind == .check })
    }

    @Test func cleanupsAndExposureWindowsAreBands() throws {
        let data = try Self.data()
        let cleanups = data.bands.filter { $0.kind == .cleanup || $0.kind == .cleanupFailed }
        #expect(cleanups.map(\.kind) == [.cleanup, .cleanupFailed], "green clean, red failed")
        #expect(cleanups[0].start == 1_001_000 && cleanups[0].end == 1_003_000)
        let windows = data.bands.filter { $0.kind == .exposure || $0.kind == .open }
        #expect(windows.count == 2, "mail (clean) and crm (open); not the pairs that held nothing")
        let mail = try #require(windows.first { $0.lane == 1 })
        #expect(mail.kind == .exposure && mail.start == 1_000_000 && mail.end == 1_003_000)
        #expect(mail.text == "mail: exposure after generation 2 (held cou1/plain): 3.0 ms")
        let crm = try #require(windows.first { $0.lane == 3 })
        #expect(crm.kind == .open && crm.end == data.span, "open: to the end of the run")
        #expect(crm.text.hasSuffix("open: " + Sample.openReason))
    }

    /// A storm: thousands of posts become a count per time bin, so the page stays small.
    @Test func aStormIsSummarisedAsCountsPerBin() throws {
        var result = try Sample.runResults()[0]
        let posts = (0..<3000).map { index in
            TraceEvent(
                t: Sample.first + 1_000 + UInt64(index) * 100_000, proc: "hub", event: .posted,
                fields: [.name: .string(NotifyCenter.accountChanged)])
        }
        result.events = (result.events + posts).sorted { $0.t < $1.t }
        let data = TimelineData(ScenarioReport(runs: [(result, 1)]))
        #expect(data.marks.count + data.bands.count <= TimelineData.markLimit)
        #expect(!data.marks.contains { $0.kind == .post })
        let bins = data.bands.filter { $0.kind == .post }
        #expect(bins.map(\.count).reduce(0, +) == 3001, "every post counted once")
        #expect(bins.count <= TimelineData.binCount + 1)
        #expect(data.summarised == ["post"])
        #expect(data.marks.contains { $0.kind == .callback }, "what is not crowded stays as marks")
    }

    /// Text a document carries is escaped for where it lands: the apps' table and the
    /// timelines' script block, where `<!--<script>` would change how the page is parsed.
    @Test func textFromADocumentIsEscapedForThePage() throws {
        var result = try Sample.runResults()[0]
        let hostile = "<!--<script>alert(1)</script>"
        result.events.append(
            TraceEvent(
                t: Sample.first + 5, proc: "mail", event: .callback, fields: [.name: .init(stringLiteral: hostile)]))
        var report = ScenarioReport(runs: [(result, 1)])
        report.apps[0].sdk = "<img src=x onerror=alert(1)>"
        let page = ReportPage.html([report])
        #expect(!page.contains("<img src=x"))
        #expect(!page.contains("<!--<script>"))
        let script = try #require(page.range(of: "id=\"timelines\">"))
        let end = try #require(page.range(of: "</script>", range: script.upperBound..<page.endIndex))
        #expect(!page[script.upperBound..<end.lowerBound].contains("<"), "no markup inside the JSON")
    }
}
