import AppCommandLine
import ArgumentParser
import DeviceLaunch
import DeviceProcesses
import Glibc

struct AppCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app",
        abstract: "Run the built-in app (started by `run`).",
        discussion: """
            The built-in app, an app on the simulated SDKs (msal for iOS, msal-android or ws1) \
            run by the device host as a team's app is: it keeps its data in --container, serves \
            dev.sdlab.App1 at /dev/sdlab/App under dev.sdlab.App.NAME, and appends its events to \
            --trace. MSAL apps check the account at launch, on every return to the foreground, \
            when told it was resumed and on the broker's posts; Workspace ONE apps only at launch \
            and on a return to the foreground. A cleanup cut short by a crash is finished at the \
            next launch, before anything else. Says `ready` (on --ready-fd, else stdout) once the \
            launch check is done; SIGTERM lets the work in hand finish, then exits 0. Exit 3 \
            when it cannot start. This runs `sdlab-app`, built beside sdlab.
            """
    )

    @OptionGroup var app: AppArguments

    /// The app's host owns the main thread for the process's life, so the app runs as the
    /// process `sdlab-app` is, in place of this one.
    func run() throws {
        let executable: String
        do {
            executable = try LaunchedApp.appExecutable(beside: DevicePaths.executablePath())
        } catch {
            throw ValidationError("\(error)")
        }
        let arguments = [executable] + CommandLine.arguments.drop { $0 != "app" }.dropFirst()
        var pointers = arguments.map { strdup($0) } + [nil]
        execv(executable, &pointers)
        throw ValidationError("cannot run \(executable): \(String(cString: strerror(errno)))")
    }
}
