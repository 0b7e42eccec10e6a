import ArgumentParser
import DeviceContract
import ManagedApp

struct AppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app",
        abstract: "Run one managed app process (started by `run`).",
        discussion: AppMain.discussion
    )

    @OptionGroup var options: AppOptions

    func run() async throws { try await AppMain.run(options) }
}
