import DBusKit
import DeviceContract
import DeviceLaunch
import DeviceProcesses
import Foundation
import HubFiles
import LeakScan
import RunResults
import Scenario
import SharedDevice

/// Checks one `expect` step against the device as it is now: the hub's answers, each app's
/// snapshot (or the one taken before it was stopped), the leak scan and the merged trace.
struct ExpectationCheck {
    let driver: StepDriver
    /// Callbacks count from this time on (the previous `expect`).
    let since: UInt64

    /// Every failed field, at its location; the same failure of several apps (a fleet's
    /// members, `all`) is one, listing them.
    func failures(of expectations: [Expectation]) async throws -> [StepFailure] {
        let session = try await hubSession()
        let findings = LeakScanner(
            containersFolder: RunFolder.containers(in: driver.device.directory), outOfScope: driver.scenario.scanSkips
        ).scan()
        let events = driver.traces.merged()
        let timings = SessionChangeTiming.all(in: events, cleanups: driver.scenario.cleanups)
        var failures: [StepFailure] = []
        var appFailures = AppGroups<AppFailure>()
        for expectation in expectations {
            if expectation.target == .hub {
                failures += try await hubFailures(expectation, session: session)
                continue
            }
            // Read from every event of each app: only for an expectation that asks.
            let readsExpiry = expectation.fields.contains { if case .expired = $0.check { true } else { false } }
            for app in apps(of: expectation.target) {
                let cleanup = driver.scenario.apps.first { $0.name == app }?.cleanup ?? .wipeAll
                let context = AppContext(
                    app: app, snapshot: try await snapshot(of: app), currentUser: session.user,
                    scan: LeakScanner.judge(
                        findings.filter { $0.app == app }, currentUser: session.user,
                        cleanup: cleanup),
                    unreadable: findings.unreadable.filter { $0.app == app },
                    timing: timings.last { $0.app == app },
                    expiry: readsExpiry ? TaskExpiry.latest(of: app, in: events) : nil,
                    callbacks: events.filter { $0.proc == app && $0.is(.callback) && $0.t > since }
                        .compactMap { $0[.name] })
                for field in expectation.fields {
                    for mismatch in context.mismatches(field.check) {
                        appFailures.add(app, under: AppFailure(location: field.location, mismatch: mismatch))
                    }
                }
            }
        }
        return failures
            + appFailures.groups.map { failure, apps in
                var mismatch = failure.mismatch
                mismatch.apps = apps
                return StepFailure(location: failure.location, reason: .mismatch(mismatch))
            }
    }

    private func apps(of target: ExpectTarget) -> [String] {
        switch target {
        case .hub: []
        case .app(let name): [name]
        case .group(let group): driver.scenario.apps.filter { group.covers($0.sdk) }.map(\.name)
        }
    }

    private func snapshot(of app: String) async throws -> (state: AppLifecycle.State, value: AppSnapshot?) {
        let state = driver.fleet.apps[app]?.state ?? .notRunning
        switch state {
        case .notRunning: return (state, nil)
        case .suspended: return (state, driver.frozen[app])
        default: return (state, try await driver.client(app).snapshot())
        }
    }

    /// The hub's session; while the hub is down (`hub: crash`), the one it saved, which is the
    /// same truth (it saves before it answers).
    private func hubSession() async throws -> Session {
        do {
            if let session = Session(wire: try await hubCall(HubMethod.getSession).first) { return session }
            throw DBusError.failed("the hub's GetSession reply is not (sst)")
        } catch {
            guard let saved = try? StateFile(path: RunFolder.hubState(in: driver.device.directory)).load()
            else { throw error }
            return saved.model.session
        }
    }

    /// MSAL's signed-in account, as the broker answers `GetAccounts`; while the hub is down,
    /// the one it saved.
    private func brokerAccount() async throws -> String? {
        do {
            let list = try await hubCall(BrokerMethod.getAccounts).first?.items ?? []
            let accounts = list.compactMap(BrokerAccount.init(wire:))
            guard accounts.count == list.count, accounts.count <= 1 else {
                throw DBusError.failed("the broker's GetAccounts reply is not one account or none")
            }
            return accounts.first?.username
        } catch {
            guard let saved = try? StateFile(path: RunFolder.hubState(in: driver.device.directory)).load()
            else { throw error }
            return saved.model.currentAccount
        }
    }

    private func hubFailures(_ expectation: Expectation, session: Session) async throws -> [StepFailure] {
        var failures: [StepFailure] = []
        for field in expectation.fields {
            let (name, expected, actual): (String, String, String)
            switch field.check {
            case .hubState(let state): (name, expected, actual) = ("state", state.rawValue, session.state.rawValue)
            case .user(let user): (name, expected, actual) = ("user", user ?? "none", session.user ?? "none")
            case .account(let user):
                (name, expected, actual) = ("account", user ?? "none", try await brokerAccount() ?? "none")
            case .generation(let generation):
                (name, expected, actual) = ("generation", "\(generation)", "\(session.generation)")
            case .online(let online):
                (name, expected, actual) = ("online", "\(online)", "\(try await hubProperty(.online).bool ?? false)")
            case .locked(let locked):
                (name, expected, actual) = ("locked", "\(locked)", "\(try await hubProperty(.locked).bool ?? false)")
            case .foreground(let front):
                // The Hub app is in front since a check-in or check-out in it (the fleet's), or
                // after an offline unlock (the hub's `hub`); else the fleet's foreground app.
                let shown = try await hubProperty(.foreground).string ?? ""
                let inFront =
                    driver.fleet.hubInFront ? "hub" : shown == "app" ? driver.fleet.foregroundApp ?? "app" : shown
                (name, expected, actual) = ("foreground", front, inFront)
            default: (name, expected, actual) = ("field", "a hub field", "\(field.check)")
            }
            if expected != actual {
                let mismatch = Mismatch(apps: [], name: name, expected: expected, got: actual)
                failures.append(StepFailure(location: field.location, reason: .mismatch(mismatch)))
            }
        }
        return failures
    }

    private func hubProperty(_ property: HubMethod.Property) async throws -> DBusValue {
        try await driver.connection.hubProperty(property, at: driver.device.hubAddress, timeout: .seconds(10))
            ?? .bool(false)
    }

    private func hubCall<Method: HubMember>(_ method: Method, _ arguments: [DBusValue] = []) async throws -> [DBusValue]
    {
        try await driver.connection.callHub(method, arguments, at: driver.device.hubAddress, timeout: .seconds(10))
    }
}

/// One app as an expectation sees it.
private struct AppContext {
    let app: String
    let snapshot: (state: AppLifecycle.State, value: AppSnapshot?)
    let currentUser: String?
    /// Other users' data readable in the app's container, judged by its declared cleanup.
    let scan: (leaks: [LeakScanner.Finding], retained: [LeakScanner.Finding])
    /// What the scan could not read in the container: a count of leaks or retained data is then
    /// unknown, never what was found.
    let unreadable: [LeakScanner.Unreadable]
    let timing: SessionChangeTiming?
    /// How long after the app last entered the background its expiration handlers ran (read
    /// only for an `expired` field).
    let expiry: Duration?
    let callbacks: [String]

    /// A count the scan cannot vouch for: what it could not read, three places at most.
    private var unknown: String { "unknown: the scan could not read " + unreadable.described() }

    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format2: Double(seconds) * 1000 + Double(attoseconds) / 1e15) + " ms"
    }

    /// Each part of the check that does not hold (its apps not yet filled in); with what the
    /// scanner found when a count of leaks or retained data is off.
    func mismatches(_ check: ExpectField.Check) -> [Mismatch] {
        switch check {
        case .leaks(let count) where !unreadable.isEmpty:
            return [Mismatch(apps: [], name: "leaks", expected: "\(count)", got: unknown)]
        case .retained(let preferences, let common) where !unreadable.isEmpty:
            return [(RecordKind.preferences, preferences), (.common, common)].compactMap { kind, expected in
                expected.map { Mismatch(apps: [], name: "retained.\(kind.rawValue)", expected: "\($0)", got: unknown) }
            }
        case .leaks(let count) where scan.leaks.count != count:
            return [
                Mismatch(
                    apps: [], name: "leaks", expected: "\(count)", got: "\(scan.leaks.count)",
                    found: scan.leaks.isEmpty ? nil : scan.leaks.described)
            ]
        case .retained(let preferences, let common):
            return [(RecordKind.preferences, preferences), (.common, common)].compactMap { kind, expected in
                let kept = scan.retained.filter { $0.canary.kind == kind }
                guard let expected, kept.count != expected else { return nil }
                return Mismatch(
                    apps: [], name: "retained.\(kind.rawValue)", expected: "\(expected)", got: "\(kept.count)",
                    found: kept.isEmpty ? nil : kept.described)
            }
        default:
            let (name, expected, actual) = compare(check)
            return expected == actual ? [] : [Mismatch(apps: [], name: name, expected: expected, got: actual)]
        }
    }

    private func compare(_ check: ExpectField.Check) -> (String, String, String) {
        let value = snapshot.value
        switch check {
        case .state(let state):
            let actual = value?.blocked == true ? "blocked" : snapshot.state.rawValue
            return ("state", state.rawValue, actual)
        case .user(let user): return ("user", user ?? "none", value?.user ?? "none")
        case .previous(let previous): return ("previous", previous ?? "none", value?.previous ?? "none")
        case .callbacks(let expected): return ("callbacks", "\(expected)", "\(callbacks)")
        case .error(let error): return ("error", error ?? "none", value?.error ?? "none")
        case .leaks(let count): return ("leaks", "\(count)", "\(scan.leaks.count)")
        case .exposed(let count):
            return ("exposed", "\(count)", "\(value?.exposed(currentUser: currentUser).count ?? 0)")
        case .records(let count): return ("records", "\(count)", "\(value?.displayed.count ?? 0)")
        case .prefsApplied: return ("prefs", "applied", value?.preferencesApplied == true ? "applied" : "not applied")
        case .mechanism(let mechanism): return ("mechanism", mechanism.rawValue, timing?.mechanism.rawValue ?? "none")
        case .expired(let ran, let after, let before):
            return ("expired", Self.expiry(ran: ran, after: after, before: before), expiryText(within: after, before))
        case .within(let limit):
            let bound = "≤ \(Self.milliseconds(limit))"
            guard let timing, timing.exposed else { return ("within", bound, bound) }  // nothing was exposed
            guard let exposure = timing.exposure else {
                return ("within", bound, "still open: \(timing.openReason ?? "")")
            }
            let window = Duration.nanoseconds(Int64(exposure))
            return ("within", bound, window <= limit ? bound : Self.milliseconds(window))
        default:
            return ("field", "an app field", "\(check)")
        }
    }

    /// What `expired` expects, in words.
    static func expiry(ran: Bool, after: Duration?, before: Duration?) -> String {
        switch (after, before) {
        case (nil, nil): "\(ran)"
        case (let after?, nil): "ran ≥ \(milliseconds(after)) after the background"
        case (nil, let before?): "ran ≤ \(milliseconds(before)) after the background"
        case (let after?, let before?):
            "ran \(milliseconds(after)) to \(milliseconds(before)) after the background"
        }
    }

    /// What the trace says of the handlers: the expectation's own words when it holds.
    private func expiryText(within after: Duration?, _ before: Duration?) -> String {
        guard let expiry else { return "false" }
        guard after != nil || before != nil else { return "true" }
        guard expiry >= after ?? .zero, expiry <= before ?? expiry else {
            return "ran \(Self.milliseconds(expiry)) after the background"
        }
        return Self.expiry(ran: true, after: after, before: before)
    }
}

/// One failed check of an expectation, whichever app failed it: the same failure of several
/// apps of one `expect` step (a fleet's members, `all`) is one that lists them,
/// `LOC: fleet1–fleet20 (20 apps).leaks: expected 0, got 3`. Alike means at the same field's
/// key with the same mismatch (its apps not yet filled in).
private struct AppFailure: Hashable {
    let location: Location
    let mismatch: Mismatch
}
