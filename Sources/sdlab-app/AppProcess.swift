import BuiltInApp

/// The process the runner starts for each app of a fleet (`sdlab app` execs it): the built-in
/// app, run by the device host as a team's app is. Its options and `--help` are the host's.
@main
enum AppProcess {
    @MainActor
    static func main() { BuiltInApp.main() }
}
