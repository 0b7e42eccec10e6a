import AppCommandLine
import ArgumentParser
import ManagedApp

struct AppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app",
        abstract: "Run one managed app process (started by `run`).",
        discussion: AppMain.discussion
    )

    @OptionGroup var app: AppArguments

    func run() async throws { try await AppMain.run(app.options) }
}
