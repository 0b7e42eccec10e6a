import DeviceLaunch
import DeviceProcesses
import Foundation
import TestSupport
import Testing

/// What of the runner's environment an app gets: a phone's app does not see its developer's
/// shell (Docs/behaviour.md §10, the sandbox).
@Suite struct AppEnvironmentRuleTests {
    @Test(arguments: [
        ("PATH", true), ("LD_LIBRARY_PATH", true), ("LANG", true), ("LC_ALL", true), ("TZ", true),
        ("SDLAB_FENCE_WATCH", true), ("SWIFT_BACKTRACE", true), ("ASAN_OPTIONS", true),
        ("HOME", false), ("GITHUB_TOKEN", false), ("DBUS_SESSION_BUS_ADDRESS", false), ("XDG_RUNTIME_DIR", false),
        ("USER", false), ("SSH_AUTH_SOCK", false),
    ])
    func whatOfTheRunnersEnvironmentPassesOn(name: String, passes: Bool) {
        #expect(AppContainer.passesOn(name) == passes)
    }
}

/// An app starts with its container's environment and only what passes on of the runner's.
@Suite(.tags(.device), .devicesWanted, .serialized, .timeLimit(.minutes(3)))
struct AppEnvironmentTests {
    @Test func aLaunchedAppSeesItsContainerAndOnlyWhatPassesOn() async throws {
        try await AppDevice.with { lab in
            let mail = try await lab.launch(AppSpec(name: "mail", sdk: .msal, backgroundMode: true))
            let seen = AnsweringAppTests.environment(of: mail.process.pid)
            let runner = ProcessInfo.processInfo.environment
            let container = AppContainer(root: RunFolder.container(of: "mail", in: lab.directory))
            for (name, value) in container.environment { #expect(seen[name] == value, "\(name)") }
            for (name, value) in runner where container.environment[name] == nil {
                #expect(seen[name] == (AppContainer.passesOn(name) ? value : nil), "\(name)")
            }
            #expect(runner["PATH"] != nil && seen["PATH"] == runner["PATH"])
        }
    }
}
