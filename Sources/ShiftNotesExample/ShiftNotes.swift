import ArgumentParser
import DeviceContract
import ManagedApp
import SharedDevice

/// An example of an app a team builds on SharedDeviceSDK and runs as a fleet member: a
/// shift-notes app with a cleanup of its own. The SDK (MSAL or Workspace ONE, as the scenario
/// says) tells it when the user changed; its cleanup then deletes the previous user's notes
/// and preferences, and nobody else's, and keeps the checklists every shift shares (`common`).
///
/// It takes the same options as `sdlab app`, and runs only with `--cleanup own` (what it keeps
/// declared with `--keeps common`); a scenario in `Scenarios/` runs it with
/// `{name: notes, sdk: msal, executable: ../.build/debug/ShiftNotesExample, cleanup: {keeps: [common]}}`.
@main
struct ShiftNotes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ShiftNotesExample",
        abstract: "An example managed app with its own cleanup, built on SharedDeviceSDK.",
        discussion: AppMain.discussion
    )

    @OptionGroup var options: AppOptions

    func run() async throws {
        try await AppMain.run(options) { job, container in
            guard let previous = job.previousUser else { return }
            try container.delete([.sensitive, .plain, .external, .preferences], of: previous)
        }
    }
}
