import Foundation
import Reports
import Testing

@Suite struct StatisticsTests {
    @Test func theMedian() {
        #expect(Statistics.median([3, 1, 2]) == 2 && Statistics.median([4, 1, 2, 3]) == 2.5)
        #expect(Statistics.median([]).isNaN)
    }

    /// Values from the exact distribution of U: with 3 and 3, one arrangement in C(6,3) = 20
    /// puts every new value above every old one.
    @Test func exactTailsOfSmallSamples() {
        #expect(abs(Statistics.mannWhitneyGreater([4, 5, 6], than: [1, 2, 3]) - 1.0 / 20) < 1e-12)
        #expect(Statistics.mannWhitneyGreater([1, 2, 3], than: [4, 5, 6]) == 1)
        // U = 8 of 9: the top arrangement and the one that swaps the closest pair.
        #expect(abs(Statistics.mannWhitneyGreater([3.5, 5, 6], than: [1, 2, 4]) - 2.0 / 20) < 1e-12)
        #expect(abs(Statistics.mannWhitneyGreater([10, 11, 12, 13], than: [1, 2, 3, 4]) - 1.0 / 70) < 1e-12)
        #expect(abs(Statistics.smallestOneSidedP(4, 4) - 1.0 / 70) < 1e-12)
        #expect(Statistics.smallestOneSidedP(1, 1) == 0.5)
    }

    @Test func largeOrTiedSamplesUseTheNormalApproximation() {
        let base = (1...30).map { Double($0 % 5) }
        let shifted = base.map { $0 + 3 }
        #expect(Statistics.mannWhitneyGreater(shifted, than: base) < 0.001)
        #expect(Statistics.mannWhitneyGreater(base, than: base) > 0.4)
        #expect(Statistics.mannWhitneyGreater([1, 1, 1], than: [1, 1, 1]) == 1, "all tied: nothing to tell")
    }
}

@Suite struct ComparisonTests {
    /// A document of one scenario whose app `mail` has these exposures (ms), one pair each.
    static func document(
        exposures: [Double], passed: Bool = true, callbacks: [String] = ["current-account(cou1,none)"],
        open: Int = 0
    ) throws -> RunDocument {
        let pairs = exposures.enumerated().map { index, exposure in
            """
            {"run": \(index + 1), "generation": 2, "app": "mail", "sdk": "msal", "mechanism": "signal",
             "t0": 1000, "notified_ms": 0.5, "held": "cou1/plain", "exposure_ms": \(exposure), "open": null}
            """
        }
        let openPairs = (0..<open).map { _ in
            """
            {"run": 1, "generation": 2, "app": "mail", "sdk": "msal", "mechanism": "signal", "t0": 1000,
             "notified_ms": null, "held": "cou1/plain", "exposure_ms": null, "open": "the app ran no cleanup"}
            """
        }
        let json = """
            {"passed": \(passed), "scenarios": [{
              "name": "one", "file": "one.yaml", "tags": [], "passed": \(passed), "environment_failure": null,
              "runs": \(exposures.count), "failed_runs": 0, "shown_run": 1, "duration_s": 1.0,
              "apps": [{"name": "mail", "sdk": "msal", "background": true, "cleanup": "wipe-all",
                        "callbacks": [\(callbacks.map { "\"\($0)\"" }.joined(separator: ","))]}],
              "steps": [], "timing": [], "open": [],
              "pairs": [\((pairs + openPairs).joined(separator: ","))],
              "scan": {"current_user": null, "apps": {}, "lines": []}
            }]}
            """
        return try RunDocument.decoded(from: Data(json.utf8))
    }

    static let base = [2.0, 2.2, 1.9, 2.1, 2.3, 2.0]

    @Test func aRunAgainstItselfHasNoRegression() throws {
        let comparison = RunComparison(
            base: try Self.document(exposures: Self.base), new: try Self.document(exposures: Self.base))
        #expect(comparison.regressions == 0)
        #expect(comparison.timings.map(\.verdict) == [.unchanged, .unchanged])
        #expect(comparison.timings.map(\.measure) == ["notified", "exposure"])
    }

    /// A new run from an empty shard lacks the base's scenario: that is never "no regression".
    @Test func aScenarioTheNewRunLacksIsARegression() throws {
        let empty = try RunDocument.decoded(from: Data(#"{"passed": true, "scenarios": []}"#.utf8))
        let comparison = RunComparison(base: try Self.document(exposures: Self.base), new: empty)
        #expect(comparison.regressions == 1)
        #expect(comparison.changes.map(\.what) == ["only in the base run: the new run lacks it"])
        let gained = RunComparison(base: empty, new: try Self.document(exposures: Self.base))
        #expect(gained.regressions == 0, "a scenario only the new run has is no regression")
    }

    /// A number no run writes (a damaged or crafted document) is refused naming its field,
    /// never a crash when it is computed with.
    @Test(arguments: ["1e308", "-1e308", "18446744073709551615"])
    func aNumberOutOfBoundsIsRefusedNamingItsField(exposure: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let good = String(decoding: try Self.document(exposures: [2.0]).encoded(), as: UTF8.self)
        let bad = good.replacingOccurrences(of: "\"exposure_ms\" : 2", with: "\"exposure_ms\" : \(exposure)")
        #expect(bad != good)
        try Data(bad.utf8).write(to: URL(fileURLWithPath: folder + "/run.json"))
        #expect {
            try RunDocument.read(folder + "/run.json")
        } throws: { error in
            "\(error)".contains("scenario one.yaml, pair 1: exposure_ms") && "\(error)".contains("is out of bounds")
        }
    }

    @Test func anUnreadableRunSaysWhichFileAndWhy() throws {
        #expect {
            try RunDocument.read("/nonexistent/run.json")
        } throws: { error in
            "\(error)" == "cannot read /nonexistent/run.json: No such file or directory (ENOENT)"
        }
    }

    @Test func tenTimesTheExposureIsARegression() throws {
        let comparison = RunComparison(
            base: try Self.document(exposures: Self.base), new: try Self.document(exposures: Self.base.map { $0 * 10 }))
        #expect(comparison.regressions == 1)
        let exposure = try #require(comparison.timings.first { $0.measure == "exposure" })
        #expect(exposure.verdict == .regression && exposure.pSlower < 0.01)
        #expect(exposure.base.count == 6 && exposure.new.count == 6)
        #expect(abs(exposure.newMedian - 20.5) < 1e-9)
    }

    @Test func aSignificantButSmallSlowdownIsNoRegression() throws {
        // Every new value is higher, but by 0.5 ms: under the 1 ms minimum.
        let comparison = RunComparison(
            base: try Self.document(exposures: Self.base), new: try Self.document(exposures: Self.base.map { $0 + 0.5 })
        )
        #expect(comparison.regressions == 0)
        var strict = RunComparison.Thresholds()
        strict.minimumMilliseconds = 0.1
        let stricter = RunComparison(
            base: try Self.document(exposures: Self.base),
            new: try Self.document(exposures: Self.base.map { $0 + 0.5 }),
            thresholds: strict)
        #expect(stricter.regressions == 1)
    }

    @Test func fasterIsAnImprovement() throws {
        let comparison = RunComparison(
            base: try Self.document(exposures: Self.base.map { $0 * 10 }), new: try Self.document(exposures: Self.base))
        #expect(comparison.regressions == 0)
        #expect(comparison.timings.first { $0.measure == "exposure" }?.verdict == .improvement)
    }

    @Test func tooFewSamplesAreUndecidedNeverARegression() throws {
        let comparison = RunComparison(
            base: try Self.document(exposures: [2]), new: try Self.document(exposures: [200]))
        #expect(comparison.regressions == 0)
        #expect(comparison.timings.first { $0.measure == "exposure" }?.verdict == .undecided)
    }

    @Test func behaviourThatChangedIsARegression() throws {
        let base = try Self.document(exposures: Self.base)
        let failing = RunComparison(base: base, new: try Self.document(exposures: Self.base, passed: false))
        #expect(failing.regressions == 1 && failing.changes.first?.what == "passed, now fails")
        let callbacks = RunComparison(base: base, new: try Self.document(exposures: Self.base, callbacks: []))
        #expect(callbacks.regressions == 1)
        #expect(callbacks.changes.first?.what == "mail callbacks changed: [current-account(cou1,none)] → []")
        let open = RunComparison(base: base, new: try Self.document(exposures: Self.base, open: 2))
        #expect(open.regressions == 1)
        let fixed = RunComparison(base: try Self.document(exposures: Self.base, passed: false), new: base)
        #expect(fixed.regressions == 0 && fixed.changes.first?.verdict == .improvement)
    }
}

@Suite struct ReportFolderTests {
    static func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sdlab-report-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func aFolderReadBackDrawsTheSameReports() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let reports = try Sample.results()
        try ReportFolder.write(reports, to: folder)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ReportFolder.files.sorted())
        for file in ReportFolder.files {
            let mode = try FileManager.default.attributesOfItem(atPath: folder + "/" + file)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(file) is private, as the run folder is")
        }
        let read = try ReportFolder.read(folder)
        #expect(read.map(\.events) == reports.map(\.events))
        #expect(Reports.junit(read) == Reports.junit(reports))
        #expect(Reports.timingCSV(read) == Reports.timingCSV(reports))
        #expect(try Reports.traceLines(read) == Reports.traceLines(reports))
        #expect(ReportPage.html(read) == ReportPage.html(reports))
        #expect(try Reports.json(read) == Reports.json(reports))
    }

    @Test func shardsMergeInFileOrderAndAScenarioInTwoIsRefused() throws {
        let (one, two, out) = (try Self.folder(), try Self.folder(), try Self.folder())
        defer { for folder in [one, two, out] { try? FileManager.default.removeItem(atPath: folder) } }
        let reports = try Sample.results()  // reports.yaml, then broken.yaml
        try ReportFolder.write([reports[0]], to: one)
        try ReportFolder.write([reports[1]], to: two)
        let merged = try ReportFolder.merge([one, two])
        #expect(merged.map(\.file) == ["broken.yaml", "reports.yaml"])
        #expect(Reports.timingCSV(merged) == Reports.timingCSV([reports[1], reports[0]]))
        #expect(throws: ReportFileFailure.self) { try ReportFolder.merge([one, one]) }
        #expect(throws: ReportFileFailure.self) { try ReportFolder.merge([out]) }
    }
}
