import DeviceProcesses

/// Awaits `work`, cancelling it when a termination signal arrives (`TerminationSignals.install()`
/// first): what it started is still stopped on its way out.
func cancellingOnTermination<T: Sendable, F: Error>(_ work: Task<T, F>) async throws(F) -> T {
    let watcher = Task {
        _ = await TerminationSignals.next()
        work.cancel()
    }
    defer { watcher.cancel() }
    return try await work.result.get()
}
