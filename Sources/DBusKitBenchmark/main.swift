import ArgumentParser
import DBusKit
import DeviceProcesses
import Foundation

/// DBusKit against the plain-C libdbus floor, in the same run: a method-call round trip and
/// a one-receiver signal, each timed the way an external C floor (`--baseline`) times its own,
/// with the same bus config, interleaved round by round so both see the same machine.
@main
struct DBusKitBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dbuskit-bench",
        abstract: "Compare DBusKit's method round trip and signal delivery with the C baseline.",
        subcommands: [Compare.self, Serve.self, Receive.self],
        defaultSubcommand: Compare.self
    )
}

enum Bench {
    static let interface = "org.example.Bench"
    static let path: ObjectPath = "/org/example/Bench"
    static let server = "org.example.BenchServer"
    static let receiver = "org.example.BenchRx.r1"

    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// Nearest-rank percentiles in microseconds, as the baseline's `pct` computes them.
    static func summary(_ nanoseconds: [Int64]) -> [String: Double] {
        let sorted = nanoseconds.sorted()
        func pct(_ p: Double) -> Double {
            guard !sorted.isEmpty else { return .nan }
            let rank = min(max(Int((p / 100 * Double(sorted.count)).rounded(.up)), 1), sorted.count)
            return Double(sorted[rank - 1]) / 1000
        }
        return ["p50": pct(50), "p90": pct(90), "p99": pct(99), "max": pct(100)]
    }

    static func line(_ label: String, _ values: [String: Double]) -> String {
        label + " "
            + ["p50", "p90", "p99", "max"].map { String(format: "%@=%.1f", $0, values[$0] ?? .nan) }.joined(
                separator: " ")
    }
}

struct Compare: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Run both sides, interleaved, and print the ratios (the default).")

    @Option(help: "A C floor folder whose run.sh times `call CALLS` and `fanout 1 M GAP_US` (not part of the package).")
    var baseline: String
    @Option(help: "Interleaved rounds.") var rounds = 3
    @Option(help: "Measured method calls per round (after 200 warm-up calls).") var calls = 2000
    @Option(help: "Measured signals per round (after 10 warm-up signals).") var signals = 1000
    @Option(help: "Microseconds between signals.") var gapUs = 2000

    func run() async throws {
        let runScript = URL(fileURLWithPath: baseline).appendingPathComponent("run.sh").path
        let config = URL(fileURLWithPath: baseline).appendingPathComponent("bench-bus.conf").path
        guard FileManager.default.isExecutableFile(atPath: runScript) else {
            throw ValidationError("no run.sh in \(baseline): pass --baseline")
        }
        var rows: [(call: (c: Double, swift: Double), signal: (c: Double, swift: Double))] = []
        for round in 1...rounds {
            note("round \(round)/\(rounds): C call")
            let cCall = try percentiles(
                in: try await shell([runScript, "call", "\(calls)"]), key: "method_call_rtt_us")
            note("round \(round)/\(rounds): DBusKit call")
            let swiftCall = try await withBus(config) { try await measureCalls(on: $0) }
            note("round \(round)/\(rounds): C signal")
            let cSignal = try percentiles(
                in: try await shell([runScript, "fanout", "1", "\(signals)", "\(gapUs)"]), key: "per_rx_us")
            note("round \(round)/\(rounds): DBusKit signal")
            let swiftSignal = try await withBus(config) { try await measureSignal(on: $0) }
            print(Bench.line("round \(round) C      call_rtt_us ", cCall))
            print(Bench.line("round \(round) DBusKit call_rtt_us ", swiftCall))
            print(Bench.line("round \(round) C      signal_us   ", cSignal))
            print(Bench.line("round \(round) DBusKit signal_us   ", swiftSignal))
            rows.append(((cCall["p50"]!, swiftCall["p50"]!), (cSignal["p50"]!, swiftSignal["p50"]!)))
        }
        print("")
        print(
            "| round | C call p50 µs | DBusKit call p50 µs | ratio | C signal p50 µs | DBusKit signal p50 µs | ratio |")
        print("|---|---|---|---|---|---|---|")
        for (index, row) in rows.enumerated() {
            print(
                String(
                    format: "| %d | %.1f | %.1f | %.2f | %.1f | %.1f | %.2f |", index + 1,
                    row.call.c, row.call.swift, row.call.swift / row.call.c,
                    row.signal.c, row.signal.swift, row.signal.swift / row.signal.c))
        }
        let callRatios = rows.map { $0.call.swift / $0.call.c }.sorted()
        let signalRatios = rows.map { $0.signal.swift / $0.signal.c }.sorted()
        print(
            String(
                format: "median ratio DBusKit/C at p50: call %.2f, signal %.2f",
                callRatios[callRatios.count / 2], signalRatios[signalRatios.count / 2]))
    }

    private func withBus<T>(_ config: String, _ body: (String) async throws -> T) async throws -> T {
        let directory = try DevicePaths.makeTemporaryDirectory(prefix: "dbuskit-bench")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let daemon = try BusDaemon.start(in: directory, config: config)
        defer { daemon.stop() }
        return try await body(daemon.address)
    }

    /// The C client's loop: back-to-back blocking calls of Ping(x), timed by the caller.
    private func measureCalls(on address: String) async throws -> [String: Double] {
        let (server, stdout) = try ChildProcess.spawn(DevicePaths.executablePath(), ["serve", address], stdout: .pipe)
        defer { server.stop(grace: .seconds(2)) }
        guard LineReader(fd: stdout!).readLine(timeout: .seconds(10)) == "ready" else {
            throw ValidationError("the server did not start")
        }
        let connection = try await Connection.connect(to: address)
        let calls = calls
        // On the connection's own thread: a reply resumes the caller without a thread hop.
        let rtt = try await withTaskExecutorPreference(connection) {
            var rtt: [Int64] = []
            rtt.reserveCapacity(calls)
            for index in 0..<(200 + calls) {
                let start = Bench.now()
                _ = try await connection.call(
                    destination: Bench.server, path: Bench.path, interface: Bench.interface,
                    member: "Ping", [.int64(start)])
                if index >= 200 { rtt.append(Bench.now() - start) }
            }
            return rtt
        }
        await connection.close()
        return Bench.summary(rtt)
    }

    /// The C emitter's schedule: 10 warm-up signals, then Ticks carrying their send time,
    /// `gapUs` apart on an absolute schedule, then Done; the receiver reports its latencies.
    private func measureSignal(on address: String) async throws -> [String: Double] {
        let connection = try await Connection.connect(to: address)
        let owners = try await connection.nameOwnerChanges(of: Bench.receiver)
        let (receiver, stdout) = try ChildProcess.spawn(
            DevicePaths.executablePath(), ["receive", address], stdout: .pipe)
        defer { receiver.stop(grace: .seconds(2)) }
        for await change in owners where !change.newOwner.isEmpty { break }
        try await Task.sleep(for: .milliseconds(300))  // the baseline's settle period before emitting
        let (signals, gapUs) = (signals, gapUs)
        let sent = await offPool { () -> Bool in
            var next = timespec()
            clock_gettime(CLOCK_MONOTONIC, &next)
            for index in 0..<(10 + signals) {
                clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nil)
                guard
                    (try? connection.emitSignal(
                        path: Bench.path, interface: Bench.interface,
                        member: index < 10 ? "Warmup" : "Tick", [.int64(Bench.now())])) != nil
                else { return false }
                next.tv_nsec += gapUs * 1000
                next.tv_sec += next.tv_nsec / 1_000_000_000
                next.tv_nsec %= 1_000_000_000
            }
            return (try? connection.emitSignal(path: Bench.path, interface: Bench.interface, member: "Done")) != nil
        }
        let report = await offPool { LineReader(fd: stdout!).readLine(timeout: .seconds(60)) }
        await connection.close()
        guard sent, let report else { throw ValidationError("the receiver did not report") }
        return try percentiles(in: report, key: "per_rx_us")
    }

    private func percentiles(in output: String, key: String) throws -> [String: Double] {
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix(key) }) else {
            throw ValidationError("no \(key) line in:\n\(output)")
        }
        var values: [String: Double] = [:]
        for field in line.split(separator: " ") {
            let parts = field.split(separator: "=")
            if parts.count == 2, let value = Double(parts[1]) { values[String(parts[0])] = value }
        }
        return values
    }

    /// Runs the baseline script through `ChildProcess`, which resets the signal mask: a
    /// child of a thread of the Swift runtime would otherwise inherit blocked signals, and the
    /// script could never stop its own daemon.
    private func shell(_ arguments: [String]) async throws -> String {
        let (process, stdout) = try ChildProcess.spawn("/bin/bash", arguments, stdout: .pipe)
        let output = await offPool { () -> String in
            let reader = LineReader(fd: stdout!)
            var lines: [String] = []
            while let line = reader.readLine(timeout: .seconds(300)) { lines.append(line) }
            return lines.joined(separator: "\n")
        }
        process.stop(grace: .seconds(5))
        return output
    }

    private func note(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}

/// The C server's counterpart: answers Ping(x) with x from a synchronous handler.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The DBusKit method-call server (internal).")
    @Argument var address: String

    func run() async throws {
        let connection = try await Connection.connect(to: address)
        try connection.export(
            [
                DBusInterface(
                    Bench.interface,
                    methods: [
                        .init("Ping", in: [.init("x", "x")], out: [.init("x", "x")]) { call in call.arguments }
                    ])
            ], at: Bench.path)
        _ = try await connection.requestName(Bench.server)
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        await connection.closed()
    }
}

/// The C receiver's counterpart: subscribes, then owns its name, then records every Tick's
/// latency as its subscription delivers it, and prints the percentiles on Done.
struct Receive: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The DBusKit signal receiver (internal).")
    @Argument var address: String

    func run() async throws {
        let connection = try await Connection.connect(to: address)
        let ticks = try await connection.signals(matching: MatchRule(path: Bench.path, interface: Bench.interface))
        _ = try await connection.requestName(Bench.receiver)
        let latencies = await withTaskExecutorPreference(connection) {
            var latencies: [Int64] = []
            for await message in ticks {
                let received = Bench.now()
                if message.member == "Done" { break }
                if message.member == "Tick", let sent = message.body.first?.int64 { latencies.append(received - sent) }
            }
            return latencies
        }
        FileHandle.standardOutput.write(
            Data((Bench.line("per_rx_us", Bench.summary(latencies)) + " n=\(latencies.count)\n").utf8))
        await connection.close()
    }
}
