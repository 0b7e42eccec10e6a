import Faults
import Scenario
import SharedDevice
import TestSupport
import Testing

/// `--focus` and `--weight`: which apps the random actions that concern one app pick.
@Suite(.ownThread) struct AppFocusTests {
    /// A fleet of nine wipe-all apps (one entry, as a scenario file's `count: 9` reads) and one
    /// app of a team's own.
    static let device: Scenario = {
        let fleet = Location(file: "team.yaml", line: 3, column: 5)
        let apps =
            (1...9).map { AppEntry(name: "fleet\($0)", sdk: .msal, background: true, location: fleet) }
            + [
                AppEntry(
                    name: "notes", sdk: .msal, background: true, cleanup: .hook(command: "true"),
                    location: Location(file: "team.yaml", line: 4, column: 5))
            ]
        return Scenario(
            name: "team", file: "team.yaml", device: Device(), users: Scenario.defaultUsers, apps: apps, steps: [])
    }()

    /// The app each random action after the opening acts on, if it acts on one.
    static func appsPicked(_ focus: AppFocus) -> [String] {
        (UInt64(1)...200).flatMap { seed -> [String] in
            let sequence = FaultSequence.random(base: device, seed: seed, length: 40, focus: focus)
            return sequence.actions.dropFirst(2 + device.apps.count).compactMap { action in
                switch action {
                case .step(.lifecycle(_, let apps)): apps.first
                case .step(.write(let app, _, _)), .step(.signin(let app, _, _)), .step(.signout(let app)): app
                default: nil
                }
            }
        }
    }

    static func share(of app: String, in picks: [String]) -> Double {
        Double(picks.filter { $0 == app }.count) / Double(picks.count)
    }

    @Test func aFocusedAppTakesMostOfTheActionsThatConcernAnApp() {
        let unfocused = Self.share(of: "notes", in: Self.appsPicked(AppFocus()))
        let focused = Self.share(of: "notes", in: Self.appsPicked(AppFocus(focused: ["notes"])))
        #expect(unfocused < 0.2, "one app of ten: \(unfocused)")
        #expect(
            focused > 0.7 && focused < 0.9,
            "about \(AppFocus.focusedShare)%, the rest keeps the fleet in play: \(focused)")
    }

    @Test func weightsSteerThePicksAndZeroIsNever() {
        let weights = Dictionary(uniqueKeysWithValues: (1...9).map { ("fleet\($0)", 0) } + [("notes", 1)])
        #expect(Set(Self.appsPicked(AppFocus(weights: weights))) == ["notes"])
        let picks = Self.appsPicked(AppFocus(weights: ["fleet1": 9]))
        #expect(Self.share(of: "fleet1", in: picks) > 3 * Self.share(of: "fleet2", in: picks), "9 against 1")
    }

    @Test func withoutFocusOrWeightsASeedGivesTheSameSequence() {
        for seed in UInt64(1)...50 {
            #expect(
                FaultSequence.random(base: Self.device, seed: seed, length: 40).actions
                    == FaultSequence.random(
                        base: Self.device, seed: seed, length: 40, focus: AppFocus(weights: ["notes": 1])
                    ).actions)
        }
    }

    @Test func namesAreAppsOrFleetsAndAnyOtherIsRefusedWithTheKnownOnes() throws {
        #expect(AppFocus.fleets(of: Self.device) == ["fleet": (1...9).map { "fleet\($0)" }])
        #expect(
            try AppFocus.apps(named: ["notes", "fleet"], in: Self.device) == ["notes"] + (1...9).map { "fleet\($0)" })
        #expect(try AppFocus.apps(named: ["fleet3"], in: Self.device) == ["fleet3"])
        let error = #expect(throws: AppFocus.UnknownApps.self) { try AppFocus.apps(named: ["nots"], in: Self.device) }
        #expect(error?.description == "no app or fleet named nots; the scenario has fleet (fleet1 … fleet9), notes")
        // The built-in device's apps share one location, but none is a fleet.
        #expect(AppFocus.fleets(of: FaultSequence.defaultDevice).isEmpty)
    }
}
