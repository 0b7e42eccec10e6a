import DBusKit
import DeviceLaunch
import RunResults

// `settle`: waiting until every running app that is not stopped has nothing pending.

extension StepDriver {
    /// `settle`'s bound when the step gives none: well past the 5 s an app's SDK waits for the
    /// hub, so an app waiting on a slow hub is waited for, and a settle that still runs out
    /// names it (rather than ending with the hub's timeout, which names nobody).
    public static let defaultSettleBound: Duration = .seconds(15)

    /// `settle`: returns once every running app that is not stopped has nothing pending —
    /// no post or resume waiting for a check, no check, cleanup or call in progress. Posts
    /// sent before now reach an app ahead of this request, so they count. Bounded by `limit`.
    /// When some app does not settle, the error names every such app and why.
    /// An app in its background time is suspended when that time is up, settled or not: it is
    /// then no longer waited for.
    func settleApps(within limit: Duration) async throws {
        try await keepTime()
        // Each app's answer, as it comes.
        let answers = Mailbox<SettleAnswer>()
        var calls: [String: Task<Void, Never>] = [:]
        defer { for call in calls.values { call.cancel() } }
        for name in running.keys.filter({ fleet.apps[$0]?.state != .suspended }).sorted() {
            guard let app = try? client(name, timeout: limit) else { continue }
            calls[name] = Task {
                do {
                    try await app.settle()
                    answers.post(SettleAnswer(app: name, failure: nil))
                } catch is CancellationError {
                    return
                } catch let gone as AppClient.AppGone {
                    answers.post(
                        SettleAnswer(app: name, failure: Unsettled(app: name, why: gone.description, gone: true)))
                } catch {
                    answers.post(SettleAnswer(app: name, failure: Unsettled(app: name, why: "\(error)", gone: false)))
                }
            }
        }
        var failed: [Unsettled] = []
        while !calls.isEmpty {
            if case .busStopped = try await nextWake(until: nil, settled: answers) {
                throw DBusError.disconnected("the device's bus stopped")
            }
            for answer in answers.take() where calls.removeValue(forKey: answer.app) != nil {
                if let failure = answer.failure { failed.append(failure) }
            }
            try await keepTime()
            // A stopped app answers nothing until continued: it is not waited for.
            for name in calls.keys where ![.foreground, .background].contains(fleet.apps[name]?.state) {
                calls.removeValue(forKey: name)?.cancel()
            }
        }
        failed.sort { $0.app < $1.app }
        guard !failed.isEmpty else { return }
        var byReason = AppGroups<String>()
        for app in failed where !app.gone { byReason.add(app.app, under: app.why) }
        let busy = byReason.groups.map { "\(AppNames.who($0.apps)): \($0.key)" }.joined(separator: "; ")
        let gone = failed.filter(\.gone).map(\.why)
        throw StepError(
            description: (gone + (busy.isEmpty ? [] : ["not settled within \(limit): " + busy])).joined(separator: "; ")
        )
    }

    /// An app that did not settle: still busy, or gone.
    struct Unsettled: Sendable {
        var app: String
        var why: String
        var gone: Bool
    }

    /// An app's answer to `Settle`: nil failure when it settled.
    struct SettleAnswer: Sendable {
        var app: String
        var failure: Unsettled?
    }
}
