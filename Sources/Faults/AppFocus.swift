import Scenario

/// Which apps the random actions that concern one app (lifecycle, writes, sign-ins) pick:
/// with a focus, a focused app most of the time and another one now and then, so that the
/// focused apps still meet the rest of the fleet; within either group, an app in proportion
/// to its weight (1 unless given; 0: never picked).
public struct AppFocus: Sendable, Equatable {
    public var focused: Set<String>
    public var weights: [String: Int]

    /// Percent of the picks that go to a focused app, when one can take the action.
    public static let focusedShare = 80

    public init(focused: Set<String> = [], weights: [String: Int] = [:]) {
        self.focused = focused
        self.weights = weights
    }

    public func weight(of app: String) -> Int { weights[app] ?? 1 }

    /// The apps `names` stand for: an app's name, or a fleet's name for its members. Names
    /// that are neither are thrown, with the names that are known.
    public static func apps(named names: [String], in scenario: Scenario) throws(UnknownApps) -> [String] {
        let fleets = Self.fleets(of: scenario)
        let apps = Set(scenario.apps.map(\.name))
        var found: [String] = []
        var unknown: [String] = []
        for name in names {
            if apps.contains(name) {
                found.append(name)
            } else if let members = fleets[name] {
                found += members
            } else {
                unknown.append(name)
            }
        }
        guard unknown.isEmpty else { throw UnknownApps(names: unknown, known: known(in: scenario, fleets: fleets)) }
        return found
    }

    /// The scenario's apps in order, a fleet once as `fleet (fleet1 … fleet9)`.
    private static func known(in scenario: Scenario, fleets: [String: [String]]) -> [String] {
        var listed: [String] = []
        for app in scenario.apps.map(\.name) {
            guard let (name, members) = fleets.first(where: { $0.value.contains(app) }) else {
                listed.append(app)
                continue
            }
            if members.first == app { listed.append("\(name) (\(members.first!) … \(members.last!))") }
        }
        return listed
    }

    /// The scenario's fleets by name. The scenario keeps none once read: a fleet is the apps
    /// one entry declared (they share its location), named after it `NAME1 … NAMEn`, n > 1
    /// (an app named `mail1` is not taken for a fleet `mail`).
    public static func fleets(of scenario: Scenario) -> [String: [String]] {
        var fleets: [String: [String]] = [:]
        for members in Dictionary(grouping: scenario.apps, by: \.location).values.map({ $0.map(\.name) }) {
            let name = String(members[0].reversed().drop { $0.isNumber }.reversed())
            if members.count > 1, !name.isEmpty, members == (1...members.count).map({ "\(name)\($0)" }) {
                fleets[name] = members
            }
        }
        return fleets
    }

    public struct UnknownApps: Error, CustomStringConvertible {
        public let names: [String]
        /// The apps and fleets there are.
        public let known: [String]

        public var description: String {
            "no app or fleet named \(names.joined(separator: ", ")); the scenario has \(known.joined(separator: ", "))"
        }
    }
}
