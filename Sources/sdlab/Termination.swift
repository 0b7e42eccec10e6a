import ArgumentParser
import DeviceContract
import DeviceProcesses
import Glibc

/// Awaits `work`, cancelling it when a termination signal arrives (`TerminationSignals.install()`
/// first): what it started is still stopped on its way out. Returns how the work ended and the
/// signal, if one came; later signals are caught and change nothing.
func cancellingOnTermination<T: Sendable, F: Error>(_ work: Task<T, F>) async -> (
    result: Result<T, F>, signal: Int32?
) {
    let watcher = Task { () -> Int32? in
        let number = await TerminationSignals.next()
        // 0: the wait was cancelled because the work ended first.
        guard number != 0 else { return nil }
        work.cancel()
        return number
    }
    let result = await work.result
    watcher.cancel()
    return (result, await watcher.value)
}

/// Says on stderr how far the work got before `signal` stopped it (`sdlab: interrupted by SIGINT
/// after 2 of 5 scenarios`) and gives the exit code to throw: 128 + the signal.
func interruption(by signal: Int32, after done: Int, of total: Int, _ unit: String) -> ExitCode {
    failure(
        "interrupted by \(signalName(signal)) after \(done) of \(total) \(unit)",
        code: ExitCodes.interrupted(by: signal))
}

private func signalName(_ number: Int32) -> String {
    switch number {
    case SIGINT: "SIGINT"
    case SIGTERM: "SIGTERM"
    case SIGHUP: "SIGHUP"
    default: "signal \(number)"
    }
}
