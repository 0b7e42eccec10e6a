import DeviceProcesses
import Foundation
import Runner

/// The plain-C floor (`shared/bench/dbus-baseline`): one emitter, N receivers, the same bus.
/// Built once into a folder of the bench's own, then run by its `run.sh`.
public struct CBaseline: Sendable {
    /// The baseline's source folder (with `build.sh` and `run.sh`).
    public let source: String
    /// Where its binaries go: never into `source`.
    public let buildFolder: String

    /// What one `run.sh fanout` measured.
    public struct Fanout: Sendable, Equatable {
        /// Every (receiver, signal) pair.
        public var perReceiver: Percentiles
        /// Per signal, the slowest receiver.
        public var slowest: Percentiles
        public var pssKBPerReceiver: Int
        public var lost: Int
    }

    public init(source: String, buildFolder: String) {
        self.source = source
        self.buildFolder = buildFolder
    }

    /// Builds the C tools; throws with what the compiler said.
    public func build() async throws(LaunchError) {
        for script in ["build.sh", "run.sh"] where !FileManager.default.isExecutableFile(atPath: source + "/" + script)
        {
            throw LaunchError("\(source) is not the D-Bus baseline: it has no executable \(script)")
        }
        let output = try await runScript("build.sh", [], timeout: .seconds(300))
        guard output.status == .exited(0) else { throw LaunchError("the baseline did not build:\n\(output.text)") }
    }

    /// One emitter to `receivers` processes, `signals` signals `gap` apart.
    public func fanout(receivers: Int, signals: Int, gap: Duration) async throws(LaunchError) -> Fanout {
        let gapMicroseconds = gap.nanoseconds / 1000
        let output = try await runScript(
            "run.sh", ["fanout", "\(receivers)", "\(signals)", "\(gapMicroseconds)"],
            timeout: .seconds(600))
        guard output.status == .exited(0), let fanout = Self.parse(output.text) else {
            throw LaunchError("the baseline fanout of \(receivers) failed:\n\(output.text)")
        }
        return fanout
    }

    /// Reads `per_rx_us`, `last_rx_us`, `rss_kb … receiver_Pss=` and the `TABLE` line's `lost`.
    static func parse(_ text: String) -> Fanout? {
        var values: [String: [String: String]] = [:]
        var lost: Int?
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard let first = words.first else { continue }
            if first == "TABLE" {
                lost = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                    .last
                    .flatMap { Int($0) }
                continue
            }
            var pairs: [String: String] = [:]
            for word in words.dropFirst() {
                let parts = word.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { pairs[String(parts[0])] = String(parts[1]) }
            }
            values[String(first)] = pairs
        }
        func percentiles(_ key: String) -> Percentiles? {
            guard let pairs = values[key], let p50 = pairs["p50"].flatMap(Double.init),
                let p99 = pairs["p99"].flatMap(Double.init)
            else { return nil }
            let p90 = pairs["p90"].flatMap(Double.init) ?? p99
            let max = pairs["max"].flatMap(Double.init) ?? p99
            return Percentiles(milliseconds: p50 / 1000, p90 / 1000, p99 / 1000, max / 1000)
        }
        guard let perReceiver = percentiles("per_rx_us"), let slowest = percentiles("last_rx_us"),
            let pss = values["rss_kb"]?["receiver_Pss"].flatMap(Int.init), let lost
        else { return nil }
        return Fanout(perReceiver: perReceiver, slowest: slowest, pssKBPerReceiver: pss, lost: lost)
    }

    private func runScript(_ script: String, _ arguments: [String], timeout: Duration) async throws(LaunchError)
        -> (status: ChildProcess.ExitStatus, text: String)
    {
        let environment = ProcessInfo.processInfo.environment.merging(["BASELINE_BUILD": buildFolder]) { $1 }
        let log = buildFolder + "/\(script).log"
        try? FileManager.default.removeItem(atPath: log)
        let (process, stdout) = try ChildProcess.spawn(
            "/bin/bash", [source + "/" + script] + arguments, stdout: .pipe,
            stderr: .file(log), environment: environment, newSession: true)
        let reader = LineReader(fd: stdout!)
        let deadline = ContinuousClock.now + timeout
        let lines = await offPool { () -> [String] in
            var lines: [String] = []
            while let line = reader.readLine(timeout: ContinuousClock.now.duration(to: deadline)) { lines.append(line) }
            return lines
        }
        // run.sh stops its receivers and its daemon by PID on TERM.
        guard let status = process.exitStatus(timeout: .seconds(5)) else {
            process.stop(grace: .seconds(5))
            throw LaunchError("the baseline's \(script) did not finish within \(timeout)")
        }
        let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return (status, (lines + [said]).joined(separator: "\n"))
    }
}
