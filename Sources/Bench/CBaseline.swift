import DeviceProcesses
import Foundation
import RunResults

/// An external floor: a folder with `build.sh` and `run.sh fanout N M GAP_US` (and `RECHECK=1`
/// in the environment for the recheck floor), whose output has `per_rx_us`, `last_rx_us`, with
/// recheck `per_check_us` and `last_check_us`, `rss_kb … receiver_Pss=`, the receivers' CPU per
/// delivery, the daemon's CPU and a `TABLE` line ending with the lost pairs. Built once into a
/// folder of the bench's own, then run by its `run.sh`.
public struct CBaseline: Floor {
    /// The baseline's source folder (with `build.sh` and `run.sh`).
    public let source: String
    /// Where its binaries go: never into `source`.
    public let buildFolder: String

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
        let output = try await runScript("build.sh", [], recheck: false, timeout: .seconds(300))
        guard output.status == .exited(0) else { throw LaunchError("the baseline did not build:\n\(output.text)") }
    }

    /// One emitter to `receivers` processes, `signals` signals `gap` apart (`directory` is not
    /// used: `run.sh` makes its own). An external floor has no session changes: no exposure.
    public func fanout(
        receivers: Int, signals: Int, gap: Duration, recheck: Bool, changes: Int, records: Int, in directory: String
    ) async throws -> FloorMeasurement {
        let gapMicroseconds = gap.nanoseconds / 1000
        let output = try await runScript(
            "run.sh", ["fanout", "\(receivers)", "\(signals)", "\(gapMicroseconds)"], recheck: recheck,
            timeout: .seconds(600))
        guard output.status == .exited(0), let fanout = Self.parse(output.text, recheck: recheck) else {
            throw LaunchError(
                "the baseline fanout of \(receivers)\(recheck ? " with RECHECK=1" : "") failed "
                    + "(\(output.status)):\n\(output.text)")
        }
        return fanout
    }

    /// Reads the lines named above; nil when one is missing. CPU: the receivers' `per delivery
    /// us=` (the baseline's own figure, after the handshake), the daemon's `cpu_ms` over every
    /// signal it sent (warm-ups and `Done` too); no broker figure.
    static func parse(_ text: String, recheck: Bool) -> FloorMeasurement? {
        var values: [String: [String: String]] = [:]
        var lost: Int?
        var receiverCPU: Double?
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard let first = words.first else { continue }
            if first == "TABLE" {
                lost = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                    .last
                    .flatMap { Int($0) }
                continue
            }
            if first == "receiver_cpu_ms", let range = line.range(of: "per delivery us=") {
                receiverCPU = Double(line[range.upperBound...].prefix { $0.isNumber || $0 == "." })
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
            let ms = { (microseconds: Double) in (microseconds * 10).rounded() / 10_000 }  // to 0.1 µs
            return Percentiles(milliseconds: ms(p50), ms(p90), ms(p99), ms(max))
        }
        guard let perReceiver = percentiles("per_rx_us"), let slowest = percentiles("last_rx_us"),
            let pss = values["rss_kb"]?["receiver_Pss"].flatMap(Int.init), let lost
        else { return nil }
        let check = percentiles("per_check_us")
        let slowestCheck = percentiles("last_check_us")
        if recheck, check == nil || slowestCheck == nil { return nil }
        let run = values["==="] ?? [:]
        let receivers = run["N"].flatMap(Double.init)
        var bus: Double?
        if let cpu = values["daemon:"]?["cpu_ms"].flatMap(Double.init), let signals = run["M"].flatMap(Double.init) {
            let sent = signals + (run["warmup"].flatMap(Double.init) ?? 0) + 1
            bus = CPUTime.tenths(cpu * 1000 / sent)
        }
        return FloorMeasurement(
            perReceiver: perReceiver, slowest: slowest, check: check, slowestCheck: slowestCheck,
            pssKBPerReceiver: pss, lost: lost,
            cpuPerPost: FloorCPU(
                bus: bus, broker: nil, receivers: receiverCPU.flatMap { cpu in receivers.map { cpu * $0 } },
                perReceiver: receiverCPU))
    }

    private func runScript(_ script: String, _ arguments: [String], recheck: Bool, timeout: Duration)
        async throws(LaunchError) -> (status: ChildProcess.ExitStatus, text: String)
    {
        var environment = ProcessInfo.processInfo.environment.merging(["BASELINE_BUILD": buildFolder]) { $1 }
        environment["RECHECK"] = recheck ? "1" : nil
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
