import Foundation
import RunResults
import Synchronization

/// What `sdlab run` shows a person while scenarios run at once: each scenario's lines together,
/// as one block when it ends (with one job, as they come), and on a terminal a status line on
/// stderr (done / total, failures so far, the scenarios running) rewritten in place. Every line
/// shows control characters escaped (`VisibleText`): a scenario name or an app's words cannot
/// steer the terminal or forge a line.
final class RunConsole: Sendable {
    private struct State {
        var blocks: [Int: [String]] = [:]
        var running: [Int: (name: String, apps: String)] = [:]
        var done = 0
        var failed = 0
        var statusShown = false
    }

    private let state = Mutex(State())
    private let live: Bool
    private let total: Int
    /// Lines go to stderr (stdout carries the JSON).
    private let toStderr: Bool
    private let showsStatus = isatty(STDERR_FILENO) == 1

    init(jobs: Int, total: Int, toStderr: Bool) {
        live = jobs == 1
        self.total = total
        self.toStderr = toStderr
    }

    /// A line of scenario `index`'s output.
    func line(_ index: Int, _ text: String) {
        state.withLock { state in
            if live {
                write([text], &state)
            } else {
                state.blocks[index, default: []].append(text)
            }
        }
    }

    /// A line of the whole run's (the summary, where the report went).
    func say(_ text: String) { state.withLock { write([text], &$0) } }

    /// A line for stderr at once, whatever the job count.
    func warn(_ text: String) {
        state.withLock { state in
            clearStatus(&state)
            Output.write(VisibleText.escaped(text) + "\n", to: STDERR_FILENO)
            drawStatus(&state)
        }
    }

    func started(_ index: Int, name: String) {
        state.withLock { state in
            state.running[index] = (name, "")
            drawStatus(&state)
        }
    }

    /// `done` of `total` apps of a fleet step in scenario `index` are through.
    func fleet(_ index: Int, done: Int, of total: Int) {
        state.withLock { state in
            state.running[index]?.apps = done == total ? "" : " (\(done) of \(total) apps)"
            drawStatus(&state)
        }
    }

    /// Scenario `index` ended: its block is printed whole.
    func finished(_ index: Int, passed: Bool) {
        state.withLock { state in
            state.running[index] = nil
            state.done += 1
            if !passed { state.failed += 1 }
            write(state.blocks.removeValue(forKey: index) ?? [], &state)
        }
    }

    /// Scenario `index` was cut short by a termination signal: its block is printed whole, and
    /// it counts as neither done nor failed.
    func cutShort(_ index: Int) {
        state.withLock { state in
            state.running[index] = nil
            write(state.blocks.removeValue(forKey: index) ?? [], &state)
        }
    }

    /// Clears the status line for good.
    func end() { state.withLock { clearStatus(&$0) } }

    private func write(_ lines: [String], _ state: inout State) {
        clearStatus(&state)
        if !lines.isEmpty {
            let text = Data(lines.map { VisibleText.escaped($0) + "\n" }.joined().utf8)
            Output.write(text, to: toStderr ? STDERR_FILENO : STDOUT_FILENO)
        }
        drawStatus(&state)
    }

    private func drawStatus(_ state: inout State) {
        guard showsStatus, !state.running.isEmpty else { return clearStatus(&state) }
        let running = state.running.keys.sorted().map {
            VisibleText.escaped(state.running[$0]!.name) + state.running[$0]!.apps
        }
        var status =
            "… \(state.done) of \(total) done\(state.failed > 0 ? ", \(state.failed) failed" : ""); running: "
            + running.joined(separator: ", ")
        let width = Self.terminalColumns()
        if status.count >= width { status = String(status.prefix(max(width - 2, 10))) + "…" }
        Output.write("\r\u{1B}[K\(status)", to: STDERR_FILENO)
        state.statusShown = true
    }

    private func clearStatus(_ state: inout State) {
        guard state.statusShown else { return }
        Output.write("\r\u{1B}[K", to: STDERR_FILENO)
        state.statusShown = false
    }

    private static func terminalColumns() -> Int {
        var size = winsize()
        return ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
    }
}
