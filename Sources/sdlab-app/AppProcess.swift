import AppCommandLine
import ArgumentParser
import ManagedApp

/// The process the runner starts for each app of a fleet: `sdlab app` in an executable of its
/// own, which loads only what an app needs (FoundationEssentials, not all of Foundation), so
/// each app of a large fleet starts faster and takes less memory.
@main
struct AppProcess: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sdlab-app",
        abstract: "Run one managed app process (what `sdlab app` runs; started by `run`).",
        discussion: AppMain.discussion
    )

    @OptionGroup var app: AppArguments

    func run() async throws { try await AppMain.run(app.options) }
}
