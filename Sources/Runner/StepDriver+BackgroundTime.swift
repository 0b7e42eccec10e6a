import DBusKit
import DeviceContract

// Background time: what the apps say of their background tasks, suspensions when due, and `wait`.

extension StepDriver {
    /// How long an app's expiration handlers may take: past it, they ended no task.
    static let expirationBound = Duration.seconds(5)

    /// Now, on the clock the domain reckons background time on (the trace's).
    var now: Duration { .nanoseconds(Int64(TraceLog.now())) }

    /// Carries out what has fallen due (Docs/behaviour.md §7): first what the apps said of
    /// their background tasks, in the order heard, then every suspension whose time has come.
    /// Called before every step, after every lifecycle step, and as `wait` and `settle` pass time.
    public func keepTime() async throws {
        if taskSubscription == nil {
            taskSubscription = try await BackgroundTaskReport.listen(on: connection, into: taskReports)
        }
        for report in taskReports.take() {
            // Only a process this driver launched speaks for an app.
            guard let app = running.first(where: { $0.value.busName == report.sender })?.key else { continue }
            for (app, effect) in fleet.backgroundTasks(report.open, of: app, at: report.at) {
                try await carryOut(effect, on: app)
            }
        }
        for (app, effect) in fleet.advance(to: now) { try await carryOut(effect, on: app) }
    }

    /// What ends a wait for time to pass.
    enum Wake: Sendable {
        case time, report, settled, busStopped
    }

    /// Waits until `deadline` (or the next suspension due, if earlier), an app says something of
    /// its background tasks, the bus stops, or something is posted to `settled`. Throws
    /// `CancellationError` when the run is interrupted meanwhile.
    func nextWake(until deadline: Duration?, settled: Mailbox<SettleAnswer>? = nil) async throws -> Wake {
        let until = [deadline, fleet.nextSuspension].compactMap { $0 }.min()
        let (reports, connection, start) = (taskReports, self.connection, now)
        let wake = await withTaskGroup(of: Wake?.self) { group -> Wake? in
            if let until {
                group.addTask {
                    try? await Task.sleep(for: max(.zero, until - start))
                    return Task.isCancelled ? nil : .time
                }
            }
            group.addTask {
                await reports.next()
                return Task.isCancelled ? nil : .report
            }
            if let settled {
                group.addTask {
                    await settled.next()
                    return Task.isCancelled ? nil : .settled
                }
            }
            group.addTask {
                await connection.closed()
                return Task.isCancelled ? nil : .busStopped
            }
            defer { group.cancelAll() }
            while let next = await group.next() {
                if let next { return next }
            }
            return nil
        }
        guard let wake, !Task.isCancelled else { throw CancellationError() }
        return wake
    }

    /// `wait`: time passes, and the suspensions that fall due meanwhile happen when due. Cut
    /// short when the device's bus stops: the run is over then.
    func passTime(_ duration: Duration) async throws {
        let end = now + duration
        while true {
            try await keepTime()
            guard now < end else { return }
            if case .busStopped = try await nextWake(until: end) {
                throw DBusError.disconnected("the device's bus stopped")
            }
        }
    }
}
