import CFenceWatch
import CSystem
import DeviceContract
import DeviceProcesses
import Foundation

/// The sandbox's fence as the kernel holds it: every app is started through `sdlab-fence`, which
/// restricts the process with Landlock before it becomes the app (the same process), so that the
/// app, a launcher script and every process they start can write only in the app's container,
/// its trace file and /dev/null. Reads stay free. Docs/hardening.md says what holds where the
/// kernel lacks Landlock or has an older ABI.
public enum AppFence {
    /// The files an app writes outside its container besides its trace (which it grows and cuts
    /// back): /dev/null (a hook's or a shell's `> /dev/null`) and /dev/tty (a shell opens it; an
    /// app has no terminal, so it fails with ENXIO, and nothing is kept there).
    static let deviceFiles = ["/dev/null", "/dev/tty"]

    /// The files an app with trace file `trace` may write outside its container: one list for
    /// Landlock's rules and the watch's judgement alike.
    static func files(trace: String) -> [String] { [trace] + deviceFiles }

    /// The program that holds the fence, beside sdlab.
    static let executableName = "sdlab-fence"

    /// The fence's command line that becomes `executable` with `arguments`. The container and
    /// the trace file exist first: a rule names an existing place.
    static func command(
        _ executable: String, _ arguments: [String], container: String, trace: String, beside sdlab: String
    ) throws(LaunchError) -> (executable: String, arguments: [String]) {
        let fence = try LaunchedApp.builtExecutable(executableName, beside: sdlab, what: executableName)
        try DevicePaths.prepareDirectory(container)
        let file = open(trace, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard file >= 0 else { throw LaunchError("cannot create the trace file \(trace): \(errorText())") }
        close(file)
        let files = files(trace: trace).flatMap { ["--file", $0] }
        let watch = ["--watch", String(LaunchedApp.readyDescriptor)] + (onThisKernel().logged ? ["--logged"] : [])
        return (fence, ["--folder", container] + files + watch + ["--", executable] + arguments)
    }

    /// What the fence holds on this machine, as `sdlab-fence` decides it: the kernel's Landlock
    /// ABI, lowered by `SDLAB_FENCE_ABI` when set; the watch unless `SDLAB_FENCE_WATCH=off`; and
    /// whether Landlock alone decides writes, its refusals logged to a runner that reads them.
    public static func onThisKernel(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> KernelFence {
        var abi = max(0, Int(sdlab_landlock_abi()))
        if let cap = environment["SDLAB_FENCE_ABI"].flatMap(Int.init), cap >= 0, cap < abi { abi = cap }
        let asked = FenceWatch.asked(in: environment)
        let unheard: String? =
            switch asked {
            case .off: nil
            case .writes: "\(FenceWatch.switchVariable)=\(FenceWatch.Asked.writes.rawValue) asked for it"
            case nil where abi < loggingABI:
                "the kernel's Landlock is ABI \(abi), older than its logging of refusals (\(loggingABI))"
            case nil: KernelRefusals.whyUnheard
            }
        return KernelFence(abi: abi, watched: asked != .off, unheard: unheard)
    }

    /// Waits until every refusal the kernel logged so far is traced as its app's (where Landlock
    /// alone decides writes); nil, or why the run cannot know what was refused.
    public static func refusalsHeard() -> String? {
        guard let kernel = kernelRefusals else { return nil }
        return kernel.settle().map { "the fence's refusals cannot all be known: \($0)" }
    }

    /// The kernel's word on what the fence refused, where Landlock alone decides writes.
    static var kernelRefusals: KernelRefusals? {
        guard onThisKernel().logged, case .success(let kernel) = KernelRefusals.shared else { return nil }
        return kernel
    }

    /// The first Landlock ABI that logs its refusals to the kernel's audit (Linux 6.15).
    static let loggingABI = 7

    /// The Landlock ABI the fence is held with (0: none), whether the watch names what it refuses,
    /// and, when it does, why writes wait for it (nil: Landlock alone decides them, and the kernel
    /// tells this runner of every refusal).
    public struct KernelFence: Sendable, Equatable {
        public let abi: Int
        public let watched: Bool
        public let unheard: String?

        /// Landlock decides writes alone and logs its refusals to this runner.
        public var logged: Bool { watched && unheard == nil }

        /// What the fence does not hold, said for the run's output; nil when it holds every write.
        public var shortfall: String? {
            let landlock: String? =
                switch abi {
                case 0: "the kernel has no Landlock here"
                case 1, 2: "the kernel's Landlock is ABI \(abi): truncate(2) and ioctl(2) on devices are not fenced"
                case 3, 4: "the kernel's Landlock is ABI \(abi): ioctl(2) on devices is not fenced"
                default: nil
                }
            let watch: String? =
                switch (watched, abi) {
                case (true, _): nil
                case (false, 0):
                    "the watch is off (SDLAB_FENCE_WATCH=off): nothing refuses an app's writes outside its container"
                case (false, _): "the watch is off (SDLAB_FENCE_WATCH=off): writes the kernel refuses are not named"
                }
            let weight = unheard.map {
                "every write waits for the runner's watch, which timings include, since the kernel cannot tell this runner of refusals: \($0)"
            }
            let said = [landlock, watch, weight].compactMap { $0 }
            return said.isEmpty ? nil : said.joined(separator: "; ") + " (Docs/hardening.md)"
        }
    }
}
