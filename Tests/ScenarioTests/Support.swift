import Scenario
import Testing

/// The example of Docs/scenarios.md, verbatim.
let specExample = """
    name: Check-in reaches MSAL apps at once and Workspace ONE apps on next launch
    device:
      shared: true                  # default true
      broadcast_on: [sign-out]      # default [sign-out]; add sign-in to also post on sign-in
      online: true                  # default true
      passcode: false               # app-level passcode policy, default false
    users:                          # the console's directory; password defaults to the name
      - {name: stage, role: staging}          # role: staging | user (default); staging: multi-user (default) | single-user
      - {name: cou1}
      - {name: cou2, password: s3cret, first_name: Ana, email: ana@example.test}
    apps:
      - {name: mail, sdk: msal, background: true, cleanup: wipe-all}
      - {name: notes, sdk: msal}              # no background mode: suspended when backgrounded
      - {name: inventory, sdk: ws1, cleanup: cache-common}
      - {name: scanner, sdk: msal-android, cleanup: {hook: ./my-cleanup.sh}}
      - {name: fleet, count: 50, sdk: msal, background: true}   # fleet1 … fleet50
    steps:
      - enroll: stage
      - checkout: cou1                        # or {user: cou1, password: …}
      - launch: [mail, notes, inventory]
      - write: {app: mail, kind: sensitive, count: 5}
      - background: [notes, inventory]
      - checkin
      - settle                                # until nothing more can happen now (bounded, default 5s; `settle: 2s`)
      - expect:
          hub: {state: checked-in, user: none}
          mail: {user: none, leaks: 0, exposed: 0, mechanism: signal, within: 50ms}
          notes: {state: suspended, user: cou1}
          inventory: {user: cou1}
      - launch: inventory                     # already running: a no-op; use terminate + launch for a cold start
      - foreground: inventory
      - expect:
          inventory: {callbacks: [wipe], leaks: 0, retained: {common: 0}}

    """

/// The problems a text gives, as `sdlab check` prints them; empty when it parses.
func problems(_ text: String, file: String = "s.yaml") -> [String] {
    do {
        _ = try Scenario.parse(text, file: file)
        return []
    } catch {
        return error.problems.map(\.description)
    }
}

/// The scenario a text gives; records an issue with every problem when it does not parse.
func parsed(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Scenario? {
    do {
        return try Scenario.parse(text, file: "s.yaml")
    } catch {
        Issue.record("\(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// A minimal scenario head with the default users and a few apps, for step tests.
let head = """
    apps:
      - {name: mail, sdk: msal, background: true}
      - {name: inventory, sdk: ws1}
      - {name: fleet, count: 3, sdk: msal}
    steps:

    """

/// Every location moved to 1:1 of one file, so two readings of a scenario compare by content.
extension Scenario {
    var relocated: Scenario {
        let here = Location(file: "s.yaml", line: 1, column: 1)
        var copy = self
        copy.file = here.file
        copy.apps = apps.map { app in
            var app = app
            app.location = here
            return app
        }
        copy.steps = steps.map { $0.relocated(to: here) }
        return copy
    }
}

extension Step {
    func relocated(to here: Location) -> Step {
        Step(location: here, error: error, kind: kind.relocated(to: here))
    }
}

extension StepKind {
    func relocated(to here: Location) -> StepKind {
        switch self {
        case .repeat(let times, let steps):
            return .repeat(times: times, steps: steps.map { $0.relocated(to: here) })
        case .expect(let expectations):
            return .expect(
                expectations.map { expectation in
                    var expectation = expectation
                    expectation.location = here
                    expectation.fields = expectation.fields.map { ExpectField(location: here, check: $0.check) }
                    return expectation
                })
        default:
            return self
        }
    }
}
