/// The exit codes of every process of a device, `sdlab` and the apps alike (Docs/outputs.md):
/// 0 done, 1 a verdict that failed, 2 bad usage or input, 3 what the environment broke.
public enum ExitCodes {
    public static let failed: Int32 = 1
    public static let usage: Int32 = 2
    public static let environment: Int32 = 3

    /// A termination signal stopped the work: 128 + its number, as a shell reports a process
    /// the signal ended (130 for SIGINT, 143 for SIGTERM), though every child was stopped first.
    public static func interrupted(by signal: Int32) -> Int32 { 128 + signal }
}
