import Faults
import Scenario
import SharedDevice
import TestSupport
import Testing

/// `external` records on the simulated device: the key service's answer, the key the app
/// process holds in memory, and the lookup after each check decide how a write ends.
@Suite(.ownThread) struct ExternalRecordTests {
    static let location = Location(file: "external.yaml", line: 1, column: 1)
    static let device = Scenario(
        name: "external", file: "external.yaml", device: Device(), users: Scenario.defaultUsers,
        apps: [
            AppEntry(name: "mail", sdk: .msal, background: true, location: location),
            AppEntry(name: "inventory", sdk: .ws1, location: location),
            AppEntry(name: "hooked", sdk: .msal, background: true, cleanup: .hook(command: "true"), location: location),
            AppEntry(name: "vault", sdk: .msal, background: true, cleanup: .externalKey, location: location),
        ], steps: [])

    /// Enrolled, cou1 checked out, `apps` launched.
    static func started(_ apps: String...) -> SimulatedDevice {
        var device = SimulatedDevice(Self.device)
        _ = device.apply(.enroll(user: "stage", password: nil))
        _ = device.apply(.checkout(user: "cou1", password: nil))
        for app in apps { _ = device.apply(.lifecycle(.launch, apps: [app])) }
        return device
    }

    static func writeExternal(_ app: String) -> StepKind { .write(app: app, kind: .external, count: 1) }

    /// To the background and back: a check (check-outs are not posted on this device).
    static func cycle(_ app: String, on device: inout SimulatedDevice) {
        _ = device.apply(.lifecycle(.background, apps: [app]))
        _ = device.apply(.lifecycle(.foreground, apps: [app]))
    }

    @Test func theFirstWriteFetchesTheKeyWhichLaterWritesNeedNoHubFor() {
        var device = Self.started("mail")
        _ = device.apply(.network(online: false))
        #expect(
            device.apply(Self.writeExternal("mail")) == .refused(.offline),
            "no key yet, and the console is out of reach")
        _ = device.apply(.network(online: true))
        #expect(device.apply(Self.writeExternal("mail")) == .done)
        _ = device.apply(.network(online: false))
        #expect(device.apply(Self.writeExternal("mail")) == .done, "the key is held in memory")
        _ = device.apply(.hub(.crash))
        #expect(device.apply(Self.writeExternal("mail")) == .done)
    }

    @Test func aNewProcessFetchesTheKeyAgainOnlyIfItHasRecordsOfTheUser() {
        var device = Self.started("mail", "hooked")
        #expect(device.apply(Self.writeExternal("mail")) == .done)
        _ = device.apply(.write(app: "hooked", kind: .plain, count: 1))
        for app in ["mail", "hooked"] {
            _ = device.apply(.lifecycle(.crash, apps: [app]))
            _ = device.apply(.lifecycle(.launch, apps: [app]))
        }
        _ = device.apply(.network(online: false))
        #expect(device.apply(Self.writeExternal("mail")) == .done, "fetched again at the launch check")
        #expect(
            device.apply(Self.writeExternal("hooked")) == .refused(.offline), "no external records: nothing fetched")
    }

    @Test func anAppThatMissedTheChangeIsRefusedTheKeyOfAnother() {
        var device = Self.started("inventory")
        _ = device.apply(.checkin(from: .console))
        #expect(
            device.apply(Self.writeExternal("inventory")) == .refused(.notCheckedOut),
            "Workspace ONE did not hear the check-in")
        _ = device.apply(.checkout(user: "cou2", password: nil, from: .console))
        #expect(device.apply(Self.writeExternal("inventory")) == .refused(.accountMismatch), "it still acts for cou1")
        Self.cycle("inventory", on: &device)
        #expect(device.apply(Self.writeExternal("inventory")) == .done)
    }

    /// The bus answers for a hub that is down, with an error no scenario can expect.
    @Test func aWriteThatWouldNeedTheKeyWhileTheHubIsDownIsLeftOut() {
        var device = Self.started("mail")
        _ = device.apply(.hub(.crash))
        #expect(device.apply(Self.writeExternal("mail")) == .notApplicable)
        #expect(device.apply(.write(app: "mail", kind: .plain, count: 1)) == .done)
    }

    /// A hook may have deleted the records or not: whether the app fetched the key back
    /// when the user returned is unknown, so a write whose outcome depends on it is left out.
    @Test func afterATeamsHookOnlyWhatDoesNotDependOnTheKeyIsPredicted() {
        var device = Self.started("hooked", "mail")
        for app in ["hooked", "mail"] { #expect(device.apply(Self.writeExternal(app)) == .done) }
        _ = device.apply(.checkin(from: .console))
        _ = device.apply(.checkout(user: "cou1", password: nil))
        for app in ["hooked", "mail"] { Self.cycle(app, on: &device) }
        _ = device.apply(.network(online: false))
        #expect(device.apply(Self.writeExternal("hooked")) == .notApplicable)
        #expect(
            device.apply(Self.writeExternal("mail")) == .refused(.offline),
            "wipe-all deleted them: nothing to fetch the key for")
        _ = device.apply(.network(online: true))
        #expect(device.apply(Self.writeExternal("hooked")) == .done, "the key service serves cou1 either way")
    }

    /// The key is never on disk: external ciphertext left behind is no leak.
    @Test func externalRecordsLeftBehindAreNoLeak() {
        var device = Self.started("vault")
        #expect(device.apply(Self.writeExternal("vault")) == .done)
        _ = device.apply(.checkin(from: .console))
        _ = device.apply(.checkout(user: "cou2", password: nil))
        Self.cycle("vault", on: &device)
        #expect(device.hasHandledLatestChange("vault") && device.apps["vault"]!.model.user == "cou2")
        #expect(device.apps["vault"]!.records.isEmpty && device.violations.isEmpty)
    }

    @Test func sequencesWriteEveryKindAndExternalWritesEndEveryWay() {
        var outcomes: [String: Int] = [:]
        for seed in UInt64(1)...400 {
            for step in FaultSequence.random(base: FaultSequence.defaultDevice, seed: seed, length: 60).scenario()
                .scenario.steps
            {
                guard case .write(_, let kind, _) = step.kind else { continue }
                outcomes["\(kind.rawValue) \(step.error?.rawValue ?? "done")", default: 0] += 1
            }
        }
        #expect(RecordKind.allCases.allSatisfy { outcomes["\($0.rawValue) done", default: 0] > 20 }, "\(outcomes)")
        #expect(
            ["Offline", "NotCheckedOut", "AccountMismatch"].allSatisfy { outcomes["external \($0)", default: 0] > 0 },
            "\(outcomes)")
    }
}
