import FoundationEssentials

/// What holds an app's writes, as the fence the runner starts it through (`sdlab-fence`) told
/// it: `landlock N`, `landlock N: WHAT IS NOT FENCED` or `none: WHY`. The app records it in its
/// `launched` event, so a trace says under which fence its run passed.
public enum WriteFenceState {
    public static let variable = "SDLAB_FENCE"

    public static func told(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        environment[variable] ?? "none: not started through sdlab-fence"
    }
}
